import type pg from 'pg';
import type { Logger } from '../core/logger';
import type { EurRates } from '../core/rates';

/** A source of current EUR prices; the default is the configured table (EXCHANGE_RATES_JSON). */
export interface RateSource {
  currentEurRates(): Promise<EurRates>;
}

export interface Clock {
  now(): Date;
}

export const systemClock: Clock = { now: () => new Date() };

export interface ApiDependencies {
  /** Reads (and the lock insert) go straight to Postgres; DATABASE_READ_URL may point it at a replica. */
  readPool: pg.Pool;
  rateSource: RateSource;
  clock: Clock;
  log: Logger;
  maxBodyBytes: number;
}
