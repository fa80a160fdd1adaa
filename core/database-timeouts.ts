import { DATABASE_TIMEOUT_SETTINGS } from './settings/declarations/database';
import { defaultsOf } from './settings/setting';
import type { ValuesOf } from './settings/setting';

/**
 * How long any process of this service waits on Postgres before giving up, so a stalled (not
 * dead) database turns into a quick, clear failure (503 in the API, a retried activity in the
 * worker) instead of requests that hang. Every value is a setting (DATABASE_*_TIMEOUT_MS,
 * core/settings/declarations/database.ts, where each one's meaning and default are declared).
 */
export type DatabaseTimeouts = ValuesOf<typeof DATABASE_TIMEOUT_SETTINGS>;

/** What a pool opened without settings (a migration, a test's helper) waits: the settings' defaults. */
export const DEFAULT_DATABASE_TIMEOUTS: DatabaseTimeouts = defaultsOf(DATABASE_TIMEOUT_SETTINGS);
