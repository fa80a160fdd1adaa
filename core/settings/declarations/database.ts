import { setting } from '../setting';
import { milliseconds, postgresUrl } from '../values';

/** Every Postgres pool's timeouts; their defaults also serve pools opened without settings (core/database-timeouts.ts). */
export const DATABASE_TIMEOUT_SETTINGS = {
  connectTimeoutMs: setting(
    'DATABASE_CONNECT_TIMEOUT_MS',
    milliseconds(5_000, { min: 1 }),
    'waiting for a Postgres connection (a new one, or a free one from the pool)',
  ),
  statementTimeoutMs: setting(
    'DATABASE_STATEMENT_TIMEOUT_MS',
    milliseconds(30_000, { min: 1 }),
    '`statement_timeout` of every connection (the client also gives up a little later); migrations run without it',
  ),
  lockTimeoutMs: setting('DATABASE_LOCK_TIMEOUT_MS', milliseconds(10_000, { min: 1 }), '`lock_timeout`: waiting for a row or table lock'),
  idleInTransactionTimeoutMs: setting(
    'DATABASE_IDLE_IN_TRANSACTION_TIMEOUT_MS',
    milliseconds(60_000, { min: 1 }),
    '`idle_in_transaction_session_timeout`: a transaction its client abandoned is ended by the server',
  ),
  keepAliveInitialDelayMs: setting(
    'DATABASE_KEEPALIVE_DELAY_MS',
    milliseconds(10_000, { min: 1 }),
    'TCP keep-alive on every connection: a peer that vanished is noticed',
  ),
};

/** Postgres: the roles' URLs (secrets: they may carry a password), then the timeouts above. */
export const DATABASE_SETTINGS = {
  databaseUrl: setting(
    'DATABASE_URL',
    postgresUrl(),
    '`postgres://` or `postgresql://` URL of the service, as `payments_app` (required for `npm run api`/`worker`/`sweeper`), and for `npm run ops` as `payments_ops`; see "Database roles"',
    { secret: true, shownDefault: 'embedded Postgres' },
  ),
  databaseMigratorUrl: setting(
    'DATABASE_MIGRATOR_URL',
    postgresUrl(),
    "`npm run migrate` only (required there): the URL as `payments_migrator`, the schema's owner",
    { secret: true },
  ),
  databaseAdminUrl: setting(
    'DATABASE_ADMIN_URL',
    postgresUrl(),
    '`npm run migrate` only, optional: a role that may create roles; then `migrate` creates `payments_migrator` and `payments_app` with the passwords of the two URLs above',
    { secret: true },
  ),
  databaseOpsUrl: setting(
    'DATABASE_OPS_URL',
    postgresUrl(),
    "`npm run migrate` only, optional, beside `DATABASE_ADMIN_URL`: the URL as `payments_ops`, which `migrate` then creates with its password: the role `npm run ops` connects as (its own `DATABASE_URL`), which writes no ledger table and may not run the ledger's functions",
    { secret: true },
  ),
  databaseReadUrl: setting('DATABASE_READ_URL', postgresUrl(), 'optional read replica for the read endpoints', {
    secret: true,
    shownDefault: '`DATABASE_URL`',
  }),
  databaseTimeouts: DATABASE_TIMEOUT_SETTINGS,
};
