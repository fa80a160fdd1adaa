/**
 * How long any process of this service waits on Postgres before giving up, so a stalled (not
 * dead) database turns into a quick, clear failure (503 in the API, a retried activity in the
 * worker) instead of requests that hang. Every value is a setting (docs/configuration.md, "Environment variables").
 */
export interface DatabaseTimeouts {
  /** Waiting for a connection: a new TCP connection and its start-up, or a free one from the pool. */
  connectTimeoutMs: number;
  /** One statement on the server: the activities' 30 s (the ledger's operation lock sets 25 s for the rest of its transaction). */
  statementTimeoutMs: number;
  /** Waiting for a row or table lock. */
  lockTimeoutMs: number;
  /** A transaction left open by a client that stopped talking: the server ends the session. */
  idleInTransactionTimeoutMs: number;
  /** TCP keep-alive: a connection whose peer vanished (no FIN) is noticed after about this. */
  keepAliveInitialDelayMs: number;
}

export const DEFAULT_DATABASE_TIMEOUTS: DatabaseTimeouts = {
  connectTimeoutMs: 5_000,
  statementTimeoutMs: 30_000,
  lockTimeoutMs: 10_000,
  idleInTransactionTimeoutMs: 60_000,
  keepAliveInitialDelayMs: 10_000,
};
