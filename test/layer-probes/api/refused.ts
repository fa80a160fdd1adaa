// Each import below breaks the layer rule; its directive is unused, and lint fails, if the rule stops refusing it.
// eslint-disable-next-line @typescript-eslint/no-restricted-imports -- api/ may not import activities/
import { createActivities } from '../../../activities';
// eslint-disable-next-line @typescript-eslint/no-restricted-imports -- api/ may not import main/
import { PROJECT_ROOT } from '../../../main/process-support';

export const probes = [createActivities, PROJECT_ROOT];
