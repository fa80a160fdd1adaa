// An import that goes down (api → core): lint must accept it as it is.
import { DomainError } from '../../../core/errors';

export const probe = DomainError;
