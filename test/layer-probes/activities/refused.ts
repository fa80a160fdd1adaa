// eslint-disable-next-line @typescript-eslint/no-restricted-imports -- activities/ may not import operations/
import { exchange } from '../../../operations/exchange.operation';

export const probe = exchange;
