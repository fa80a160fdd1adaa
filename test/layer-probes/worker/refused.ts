// eslint-disable-next-line @typescript-eslint/no-restricted-imports -- worker/ may not import dev/
import { startInfrastructure } from '../../../dev/infrastructure';

export const probe = startInfrastructure;
