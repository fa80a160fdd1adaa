import type { SettingsTree } from '../setting';
import { API_SETTINGS } from './api';
import { DATABASE_SETTINGS } from './database';
import { DEPOSIT_KEY_SETTINGS } from './deposit-keys';
import { DEVELOPMENT_SETTINGS } from './development';
import { OPERATOR_CLI_SETTINGS } from './operator-cli';
import { PAYMENT_SETTINGS, WEBHOOK_SETTINGS } from './payments';
import { PROCESS_SETTINGS } from './processes';
import { RAIL_SETTINGS } from './rails';
import { SWEEP_SETTINGS } from './sweeps';
import { CODEC_SETTINGS, TEMPORAL_SETTINGS } from './temporal';

type Merged<Groups extends readonly SettingsTree[]> = Groups extends readonly [
  infer First extends SettingsTree,
  ...infer Rest extends readonly SettingsTree[],
]
  ? First & Merged<Rest>
  : unknown;

/** Groups side by side at one level; a key two of them declare would silently keep only the last one's variable, so it throws. */
function merged<const Groups extends readonly SettingsTree[]>(...groups: Groups): Merged<Groups> {
  const seen = new Set<string>();
  for (const key of groups.flatMap((group) => Object.keys(group))) {
    if (seen.has(key)) throw new Error(`settings: ${key} is declared twice`);
    seen.add(key);
  }
  return Object.assign({}, ...groups) as Merged<Groups>;
}

/** Every setting, by concern, in the reference's order; what only the local machine uses is apart in `development`. */
export const SETTINGS = {
  ...merged(
    API_SETTINGS,
    PROCESS_SETTINGS,
    DATABASE_SETTINGS,
    TEMPORAL_SETTINGS,
    CODEC_SETTINGS,
    PAYMENT_SETTINGS,
    WEBHOOK_SETTINGS,
    RAIL_SETTINGS,
    DEPOSIT_KEY_SETTINGS,
    SWEEP_SETTINGS,
    OPERATOR_CLI_SETTINGS,
  ),
  development: DEVELOPMENT_SETTINGS,
};
