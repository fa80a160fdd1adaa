import type pg from 'pg';
import type { Clock } from '../core/clock';
import type { Logger } from '../core/logger';
import type { EurRates } from '../core/rates';
import type { RateLimit } from './middleware/rate-limit.middleware';
import type { WorkflowTarget } from './temporal/workflow-runner';

/** A source of current EUR prices; the default is the configured table (EXCHANGE_RATES_JSON). */
export interface RateSource {
  currentEurRates(): Promise<EurRates>;
}

export type { Clock } from '../core/clock';
export { systemClock } from '../core/clock';

export interface ApiDependencies {
  /** The primary: rate locks and idempotency records are written here. */
  pool: pg.Pool;
  /** Read endpoints go straight to Postgres; DATABASE_READ_URL may point this at a replica. */
  readPool: pg.Pool;
  /** Money moves only through workflows. */
  temporal: WorkflowTarget;
  rateSource: RateSource;
  clock: Clock;
  log: Logger;
  maxBodyBytes: number;
  rateLimit: RateLimit;
}
