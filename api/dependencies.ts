import type pg from 'pg';
import type { Logger } from '../core/logger';
import type { Rail } from '../core/rails';
import type { OperationDependencies } from '../operations/dependencies';
import type { ApiKeyResolver } from './auth/api-key-cache';
import type { ApiMetrics } from './metrics/api-metrics';
import type { AuthFailureLimit } from './middleware/auth.middleware';
import type { RateLimit } from './middleware/rate-limit.middleware';

export type { Clock } from '../core/clock';
export { systemClock } from '../core/clock';

/** Operations' dependencies (the primary pool, Temporal, rates, clock) plus what HTTP adds. */
export interface ApiDependencies extends OperationDependencies {
  /** Read endpoints go straight to Postgres; DATABASE_READ_URL may point this at a replica. */
  readPool: pg.Pool;
  log: Logger;
  maxBodyBytes: number;
  rateLimit: RateLimit;
  /** Failed authentications per client address before keys from it are refused unseen; absent, no limit. */
  authFailureLimit?: AuthFailureLimit;
  /** The client address is X-Forwarded-For's (the last entry: what the proxy in front saw), not the socket's. */
  trustProxy?: boolean;
  /** Who each API key belongs to (startApi: the in-memory cache); absent, every request asks the primary. */
  apiKeys?: ApiKeyResolver;
  /** What the app counts into (startApi serves it on the internal listener); absent, a registry of its own. */
  metrics?: ApiMetrics;
  /** Rails whose payments no bank or chain moves (SIMULATED_RAILS): /health/ready lists them; absent, none. */
  simulatedRails?: readonly Rail[];
  /** WITHDRAWAL_ADDRESS_COOLING_OFF_MINUTES: a new address-book entry's cooling-off, for partners whose policy sets none. */
  withdrawalAddressCoolingOffMinutes: number;
}
