import type pg from 'pg';
import { errorChain } from './sql-errors';
import { DEFAULT_DATABASE_TIMEOUTS } from '../core/database-timeouts';
import type { DatabaseTimeouts } from '../core/database-timeouts';

export { DEFAULT_DATABASE_TIMEOUTS };
export type { DatabaseTimeouts };

/** A `pg` pool's (or client's) configuration with the timeouts applied. */
export function poolConfig(connectionString: string, max: number, timeouts: DatabaseTimeouts = DEFAULT_DATABASE_TIMEOUTS): pg.PoolConfig {
  return {
    connectionString,
    max,
    connectionTimeoutMillis: timeouts.connectTimeoutMs,
    statement_timeout: timeouts.statementTimeoutMs,
    lock_timeout: timeouts.lockTimeoutMs,
    idle_in_transaction_session_timeout: timeouts.idleInTransactionTimeoutMs,
    // A statement the server never answers (a stalled host) is abandoned by the client too.
    ...(timeouts.statementTimeoutMs > 0 ? { query_timeout: timeouts.statementTimeoutMs + timeouts.connectTimeoutMs } : {}),
    keepAlive: true,
    keepAliveInitialDelayMillis: timeouts.keepAliveInitialDelayMs,
  };
}

/** SQLSTATEs that mean "the database cannot serve this now; the same request may work later". */
const UNAVAILABLE_STATES = new Set([
  '57P01', // admin_shutdown
  '57P02', // crash_shutdown
  '57P03', // cannot_connect_now (starting up, in recovery)
  '57014', // query_canceled: our statement_timeout
  '55P03', // lock_not_available: our lock_timeout
  '25P03', // idle_in_transaction_session_timeout
  // and the whole class 53 (insufficient resources: connections, disk, memory, limits), below
  '40001', // serialization_failure
  '40P01', // deadlock_detected
]);

/** Errors from the socket or the pool, which carry no SQLSTATE. */
const UNAVAILABLE_SYSTEM_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ETIMEDOUT',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'EPIPE',
  'EAI_AGAIN',
  'ENOTFOUND',
]);

/** pg's messages for a lost or never-made connection (no code). Not anchored: knex prefixes `<statement> - `. */
const UNAVAILABLE_MESSAGES = [
  /Connection terminated/,
  /timeout exceeded when trying to connect/,
  /Query read timeout/,
  /Client has encountered a connection error and is not queryable/,
  /Client was closed and is not queryable/,
  /Cannot use a pool after calling end on the pool/,
  // knex's pool when no connection comes back in time (KnexTimeoutError, no code).
  /Timeout acquiring a connection/,
  // A transaction whose BEGIN failed on a dead connection, handed out by knex ahead of the failure (ours never outlive their callback).
  /Transaction query already complete/,
];

/** Whether an error (pg's, or wrapped) means the database was unavailable or too slow, not a refusal: callers answer 503 / retry. */
export function isDatabaseUnavailable(error: unknown): boolean {
  for (const each of errorChain(error)) {
    const { code, sqlState, message, errno } = each as { code?: unknown; sqlState?: unknown; message?: unknown; errno?: unknown };
    const state = typeof sqlState === 'string' ? sqlState : code;
    if (
      typeof state === 'string' &&
      (UNAVAILABLE_STATES.has(state) || state.startsWith('08') || state.startsWith('53') || UNAVAILABLE_SYSTEM_CODES.has(state))
    )
      return true;
    if (typeof errno === 'string' && UNAVAILABLE_SYSTEM_CODES.has(errno)) return true;
    if (typeof message === 'string' && UNAVAILABLE_MESSAGES.some((pattern) => pattern.test(message))) return true;
  }
  return false;
}
