import type pg from 'pg';
import type { Clock } from '../core/clock';
import type { EurRates } from '../core/rates';
import type { WorkflowTarget } from './temporal/workflow-runner';

/** A source of current EUR prices; the default is the configured table (EXCHANGE_RATES_JSON). */
export interface RateSource {
  currentEurRates(): Promise<EurRates>;
}

/** What an operation needs: current data, the clock, and where its workflow runs. */
export interface OperationDependencies {
  /** The primary: checks that read current data must see what was written a moment ago. */
  pool: pg.Pool;
  temporal: WorkflowTarget;
  rateSource: RateSource;
  clock: Clock;
}
