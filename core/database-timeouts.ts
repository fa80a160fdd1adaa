import { DATABASE_TIMEOUT_SETTINGS } from './settings/declarations/database';
import { defaultsOf } from './settings/setting';
import type { ValuesOf } from './settings/setting';

/** How long every process waits on Postgres (DATABASE_*_TIMEOUT_MS): a stalled database fails fast instead of hanging. */
export type DatabaseTimeouts = ValuesOf<typeof DATABASE_TIMEOUT_SETTINGS>;

/** What a pool opened without settings (a migration, a test's helper) waits: the settings' defaults. */
export const DEFAULT_DATABASE_TIMEOUTS: DatabaseTimeouts = defaultsOf(DATABASE_TIMEOUT_SETTINGS);
