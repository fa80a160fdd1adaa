import { spawn, spawnSync } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import pg from 'pg';
import { Connection } from '@temporalio/client';
import { msToTs } from '@temporalio/common/lib/time';
import { joinHostPort, reachableHost } from '../core/listen-address';
import type { Logger } from '../core/logger';
import { SEARCH_ATTRIBUTE_KEYS } from '../core/search-attributes';
import type { Settings } from '../core/settings';
import { registerSearchAttributes } from '../worker/search-attributes.registration';
import { configuredDatabaseUrls, ensurePostgres } from './embedded-postgres';
import { migratedInfrastructure } from './infrastructure';
import type { Infrastructure } from './infrastructure';
import {
  CLUSTER_CONFIG_ENV,
  TEMPORAL_DATABASE,
  VISIBILITY_DATABASE,
  clusterConfigOverrides,
  clusterDynamicConfig,
  postgresServerOf,
} from './temporal-cluster-config';
import type { PostgresServer, TemporalClusterPorts } from './temporal-cluster-config';
import { ensureTemporalServerBuild } from './temporal-server-build';
import type { TemporalServerBuild } from './temporal-server-build';

const READY_TIMEOUT_MS = 120_000;
const STOP_GRACE_MS = 20_000;
/** How long closed workflows stay readable (history, Web UI) before the server deletes them. */
const NAMESPACE_RETENTION = '3 days';
/** The server's `system.namespaceCacheRefreshInterval`: every service sees a namespace change within it. */
const NAMESPACE_CACHE_REFRESH_MS = 2_000;

export interface TemporalClusterOptions {
  /** Any database on the Postgres server: the cluster uses its host, port, user and password. */
  databaseUrl: string;
  /** Its config folder and log: `<dataDir>/temporal-cluster`. */
  dataDir: string;
  namespace: string;
  /** The interface every port binds (HOST). */
  host: string;
  ports: TemporalClusterPorts;
  /**
   * True where a terminal's Ctrl-C must not reach the server before the worker has stopped (the
   * caller stops it in order); false under a parent whose process group is killed as a whole.
   */
  ownProcessGroup: boolean;
  log: Logger;
}

export interface RunningTemporalCluster {
  address: string;
  /** The config folder and the server's log. */
  folder: string;
  stop(): Promise<void>;
}

/**
 * The production topology on this machine: the real Temporal server (frontend, history, matching
 * and worker services in one process) on Postgres, built and cached on first use, its databases
 * created and migrated with its own SQL tool and schema files, the namespace and our search
 * attributes registered (the SQL setup creates neither).
 */
export async function startTemporalCluster(options: TemporalClusterOptions): Promise<RunningTemporalCluster> {
  const build = await ensureTemporalServerBuild(options.log);
  const postgres = postgresServerOf(options.databaseUrl);
  await migrateTemporalDatabases(build, postgres, options.log);
  const folder = path.join(options.dataDir, 'temporal-cluster');
  writeConfig(build, postgres, folder, options.host, options.ports);
  const address = joinHostPort(reachableHost(options.host), options.ports.frontend);
  const child = startServer(build, folder, options);
  const stop = () => stopServer(child);
  try {
    await untilReady(child, 'the Temporal server answering', () => answersSystemInfo(address));
    await untilReady(child, `namespace ${options.namespace} registered`, () => registerNamespace(address, options.namespace));
    await untilReady(child, 'search attributes registered', async () => {
      await registerSearchAttributes(address, options.namespace, options.log);
      return true;
    });
    await untilReady(child, 'search attributes usable', () => searchAttributesUsable(address, options.namespace));
    // The frontend knows them; history and matching refresh the same cache on their own clock.
    await new Promise((resolve) => setTimeout(resolve, NAMESPACE_CACHE_REFRESH_MS));
  } catch (error) {
    await stop();
    throw error;
  }
  options.log.info(`Temporal server ${address} on Postgres ${postgres.host}:${postgres.port}, config and log in ${folder}`);
  return { address, folder, stop };
}

/**
 * Postgres (DATABASE_URL or embedded) with the service's migrations, and the Temporal cluster on
 * the same server: `npm run start:cluster`, and the tests with TEST_TEMPORAL=cluster.
 */
export async function startClusterInfrastructure(
  settings: Settings,
  options: { ports: TemporalClusterPorts; ownProcessGroup: boolean; log: Logger },
): Promise<Infrastructure> {
  const { development } = settings;
  const postgres = await ensurePostgres({
    configured: configuredDatabaseUrls(settings),
    dataDir: development.dataDir,
    port: development.embeddedPostgresPort,
    host: development.host,
    log: options.log,
  });
  let temporal: RunningTemporalCluster;
  try {
    temporal = await startTemporalCluster({
      // Temporal creates its own databases: the admin's connection (a configured one without it: DATABASE_URL, as before).
      databaseUrl: postgres.urls.adminUrl ?? postgres.urls.appUrl,
      dataDir: development.dataDir,
      namespace: settings.temporalNamespace,
      host: development.host,
      ...options,
    });
  } catch (error) {
    await postgres.stop();
    throw error;
  }
  // The cluster's Web UI is not started here: no URL to give.
  return migratedInfrastructure(postgres, { address: temporal.address, uiUrl: undefined, stop: () => temporal.stop() }, options.log);
}

/**
 * Ports free right now for a cluster of its own (the tests'). Below 32768: the server stores
 * membership ports in a `smallint` column and refuses to start on a higher one, and the
 * operating system hands out free ports from above it.
 */
export async function freeClusterPorts(): Promise<TemporalClusterPorts> {
  const taken = new Set<number>();
  const next = async (): Promise<number> => {
    for (;;) {
      const port = 20_000 + Math.floor(Math.random() * 12_000);
      if (!taken.has(port) && (await canListen(port))) {
        taken.add(port);
        return port;
      }
    }
  };
  return {
    frontend: await next(),
    frontendHttp: await next(),
    history: await next(),
    matching: await next(),
    internalWorker: await next(),
    frontendMembership: await next(),
    historyMembership: await next(),
    matchingMembership: await next(),
    internalWorkerMembership: await next(),
    metrics: await next(),
  };
}

function canListen(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const server = net.createServer();
    server.once('error', () => resolve(false));
    server.listen(port, '127.0.0.1', () => server.close(() => resolve(true)));
  });
}

/** Idempotent: creates a missing database, then `setup-schema` (versioning tables) and `update-schema` to the latest version. */
async function migrateTemporalDatabases(build: TemporalServerBuild, postgres: PostgresServer, log: Logger): Promise<void> {
  const databases = [
    { name: TEMPORAL_DATABASE, schema: 'temporal' as const },
    { name: VISIBILITY_DATABASE, schema: 'visibility' as const },
  ];
  for (const database of databases) {
    if (!(await databaseExists(postgres, database.name))) {
      log.info(`creating database ${database.name}`);
      runSqlTool(build, postgres, database.name, ['create-database']);
    }
    runSqlTool(build, postgres, database.name, ['setup-schema', '--version', '0.0']);
    runSqlTool(build, postgres, database.name, ['update-schema', '--schema-dir', build.versionedSchemaDir(database.schema)]);
  }
}

async function databaseExists(postgres: PostgresServer, name: string): Promise<boolean> {
  // Any database answers about pg_database; `postgres` exists on every server.
  const client = new pg.Client({ ...postgres, database: 'postgres', connectionTimeoutMillis: 5_000 });
  await client.connect();
  try {
    const found = await client.query('select 1 from pg_database where datname = $1', [name]);
    return found.rowCount === 1;
  } finally {
    await client.end();
  }
}

function runSqlTool(build: TemporalServerBuild, postgres: PostgresServer, database: string, command: string[]): void {
  const args = ['--plugin', 'postgres12', '--endpoint', postgres.host, '--port', String(postgres.port), '--user', postgres.user];
  const result = spawnSync(build.sqlToolPath, [...args, '--database', database, ...command], {
    // The password through the environment: the command line shows in `ps`.
    env: { ...process.env, SQL_PASSWORD: postgres.password },
    encoding: 'utf8',
  });
  if (result.status !== 0) {
    throw new Error(`temporal-sql-tool ${command[0]} on ${database} failed:\n${result.stdout}${result.stderr}`);
  }
}

/** base.yaml: the module's file unchanged; `<env>.yaml`: our overrides; plus the dynamic config file. */
function writeConfig(
  build: TemporalServerBuild,
  postgres: PostgresServer,
  folder: string,
  host: string,
  ports: TemporalClusterPorts,
): void {
  const configDir = path.join(folder, 'config');
  fs.mkdirSync(configDir, { recursive: true });
  fs.copyFileSync(build.baseConfigPath, path.join(configDir, 'base.yaml'));
  const dynamicConfigPath = path.join(configDir, 'dynamicconfig.yaml');
  fs.writeFileSync(dynamicConfigPath, clusterDynamicConfig());
  const overrides = clusterConfigOverrides({ postgres, host, ports, dynamicConfigPath });
  // It holds the database password: readable by its owner only.
  fs.writeFileSync(path.join(configDir, `${CLUSTER_CONFIG_ENV}.yaml`), `${JSON.stringify(overrides, null, 2)}\n`, { mode: 0o600 });
}

function startServer(build: TemporalServerBuild, folder: string, options: TemporalClusterOptions): ChildProcess {
  // No authorizer: every port is bound to HOST, loopback by default. A shared deployment configures one (global.authorization).
  const args = ['--root', folder, '--config', 'config', '--env', CLUSTER_CONFIG_ENV, '--allow-no-auth', 'start'];
  const logFile = fs.openSync(path.join(folder, 'temporal-server.log'), 'a');
  options.log.info(`starting ${build.serverPath} ${args.join(' ')}`);
  try {
    const child = spawn(build.serverPath, args, { stdio: ['ignore', logFile, logFile], detached: options.ownProcessGroup });
    // A failed spawn shows as the exit untilReady reports; this only keeps it from crashing the process.
    child.on('error', (error) => options.log.error(`temporal server: ${error.message}`));
    // Whatever way this process ends before stopping it (a Ctrl-C during the start, a crash), the server goes too.
    process.once('exit', () => child.kill('SIGKILL'));
    return child;
  } finally {
    fs.closeSync(logFile);
  }
}

async function stopServer(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  child.kill('SIGTERM');
  const timeout = setTimeout(() => child.kill('SIGKILL'), STOP_GRACE_MS);
  await exited;
  clearTimeout(timeout);
}

/** Polls `step` until it returns true; a step that throws is retried too (the server settles for a few seconds after start). */
async function untilReady(child: ChildProcess, what: string, step: () => Promise<boolean>): Promise<void> {
  const deadline = Date.now() + READY_TIMEOUT_MS;
  let lastError: unknown;
  while (Date.now() < deadline) {
    if (child.exitCode !== null || child.signalCode !== null) {
      throw new Error(`the Temporal server exited (${child.exitCode ?? child.signalCode}) before ${what}; see temporal-server.log`);
    }
    try {
      if (await step()) return;
    } catch (error) {
      lastError = error;
    }
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
  throw new Error(`not ${what} after ${READY_TIMEOUT_MS} ms${lastError instanceof Error ? `: ${lastError.message}` : ''}`);
}

async function withConnection<T>(address: string, use: (connection: Connection) => Promise<T>): Promise<T> {
  const connection = await Connection.connect({ address, connectTimeout: 1000 });
  try {
    return await use(connection);
  } finally {
    await connection.close();
  }
}

async function answersSystemInfo(address: string): Promise<boolean> {
  await withConnection(address, (connection) => connection.workflowService.getSystemInfo({}));
  return true;
}

const GRPC_ALREADY_EXISTS = 6;

async function registerNamespace(address: string, namespace: string): Promise<boolean> {
  return withConnection(address, async (connection) => {
    try {
      await connection.workflowService.registerNamespace({ namespace, workflowExecutionRetentionPeriod: msToTs(NAMESPACE_RETENTION) });
    } catch (error) {
      if ((error as { code?: number }).code !== GRPC_ALREADY_EXISTS) throw error;
    }
    // Registered is not yet known to every service: the namespace cache refreshes every few seconds.
    await connection.workflowService.describeNamespace({ namespace });
    return true;
  });
}

/**
 * A new search attribute reaches each service's cache within seconds; until it has, a workflow
 * started with it is refused. The frontend accepting a query on all of them is the sign.
 */
async function searchAttributesUsable(address: string, namespace: string): Promise<boolean> {
  const query = SEARCH_ATTRIBUTE_KEYS.map((key) => `${key.name} = 'probe'`).join(' AND ');
  await withConnection(address, (connection) => connection.workflowService.listWorkflowExecutions({ namespace, query, pageSize: 1 }));
  return true;
}
