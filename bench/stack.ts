import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Connection } from '@temporalio/client';
import type { Logger } from '../core/logger';
import { newPayloadKeyEntry } from '../core/payload-codec';
import { SETTING_VARIABLES, loadSettings } from '../core/settings';
import { startInfrastructure } from '../dev/infrastructure';
import type { Lifecycle } from './lifecycle';
import { freePort } from '../dev/free-port';
import { PROJECT_ROOT, childrenOf, commandName, httpAnswers, sleep, spawnScript, waitUntilReady } from './processes';
import type { BenchChild } from './processes';
import { RAILS } from '../core/rails';
import { withClient } from './database';
import { startBenchBitcoin } from './bitcoin-chain';
import type { BenchBitcoin } from './bitcoin-chain';

/** Postgres counts every statement (pg_stat_statements); its cost falls on the project's side alone, the workflow ceilings use no SQL. */
const STATEMENT_COUNTING = ['-c', 'shared_preload_libraries=pg_stat_statements', '-c', 'pg_stat_statements.track=top'];

/** The empty workflow's own task queue, polled by the bench's ceiling worker. */
export const CEILING_TASK_QUEUE = 'bench-ceiling';

export interface BenchStack {
  /** payments_app, as the API and the worker connect. */
  databaseUrl: string;
  /** The embedded superuser: the bench's own fixtures (a database of its own, seeding at SQL speed). */
  databaseAdminUrl: string;
  temporalAddress: string;
  namespace: string;
  /** The project's task queue (its worker polls it, its API starts workflows on it). */
  taskQueue: string;
  apiUrl: string;
  /** PAYLOAD_ENCRYPTION_KEYS of the worker and API: the bench's own client uses it too. */
  payloadKeys: string;
  api: BenchChild;
  worker: BenchChild;
  ceilingWorker: BenchChild;
  /** The servers' root processes, looked up when asked (so a restart is followed): for their CPU time. */
  servers(): { postgres?: number; temporal?: number };
  logDir: string;
  /** The btc withdrawal row's node and hot wallet, or why there is none. */
  bitcoin: BenchBitcoin | string;
}

/**
 * The whole stack on ports of its own, never `npm start`'s defaults: an embedded Postgres in a
 * temporary folder and a headless Temporal dev server, both through the project's dev
 * infrastructure (so the dev server runs with the settings `npm start` gives it), then the
 * worker and the API as child processes exactly as `npm run worker` and `npm run api` run them,
 * with the worker's default settings (no test shortcuts) and rate limiting off. Each started
 * piece is registered with `lifecycle` at once, so a stop at any point stops what exists.
 */
export async function startStack(lifecycle: Lifecycle, log: Logger, logDir: string): Promise<BenchStack> {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'partner-payments-bench-'));
  // The embedded Postgres runs as the 'postgres' user when we are root: it must reach the folder.
  fs.chmodSync(dataDir, 0o755);
  lifecycle.add('data folder', async () => fs.rmSync(dataDir, { recursive: true, force: true }));

  const [temporalPort, postgresPort, apiPort] = [await freePort(), await freePort(), await freePort()];
  const settings = loadSettings(
    {
      ...withoutServiceSettings(process.env),
      TEMPORAL_CLI_PATH: process.env.TEMPORAL_CLI_PATH,
      DATA_DIR: dataDir,
      TEMPORAL_PORT: String(temporalPort),
      EMBEDDED_POSTGRES_PORT: String(postgresPort),
    },
    PROJECT_ROOT,
  );
  log.info(`starting Postgres on 127.0.0.1:${postgresPort} and Temporal on 127.0.0.1:${temporalPort} in ${dataDir}`);
  // pg_stat_statements, for the statements per operation (scenarios/statements.scenario.ts).
  const infrastructure = await startInfrastructure(settings, { ui: false, postgresFlags: STATEMENT_COUNTING, log });
  lifecycle.add('Postgres and Temporal', () => stopInfrastructure(infrastructure, path.join(dataDir, 'postgres'), log));
  lifecycle.checkpoint();
  if (!infrastructure.databaseAdminUrl) throw new Error('the bench runs on its own embedded Postgres');
  await withClient(infrastructure.databaseAdminUrl, (client) => client.query('create extension if not exists pg_stat_statements'));

  const payloadKeys = newPayloadKeyEntry('bench');
  const childEnv = {
    ...withoutServiceSettings(process.env),
    DATABASE_URL: infrastructure.databaseUrl,
    TEMPORAL_ADDRESS: infrastructure.temporalAddress,
    DATA_DIR: dataDir,
    LOG_LEVEL: 'warn',
    // Production encrypts every payload: the bench measures that cost too.
    PAYLOAD_ENCRYPTION_KEYS: payloadKeys,
    // No bank and no chain node here: the production entries must be told every rail is simulated.
    SIMULATED_RAILS: RAILS.join(','),
    // A webhook receiver of a scenario would listen on this machine.
    WEBHOOK_ALLOW_LOOPBACK: 'true',
    // The simulated chain and bank answer at once: a settled payment's time is then ours and
    // Temporal's, as its same-shape ceiling's is, not a simulated wait (their commands are the same).
    CHAIN_CONFIRMATION_DELAY_MS: '0',
    BANK_SETTLEMENT_DELAY_MS: '0',
  };
  // Bitcoin on a real regtest node (the worker sends btc withdrawals on it); every other network stays simulated.
  const bitcoin = await startBenchBitcoin(lifecycle, dataDir, log);
  lifecycle.checkpoint();
  const workerEnv =
    typeof bitcoin === 'string'
      ? childEnv
      : { ...childEnv, ...bitcoin.workerEnv, SIMULATED_RAILS: RAILS.filter((rail) => rail !== 'bitcoin').join(',') };
  if (typeof bitcoin !== 'string')
    await withClient(infrastructure.databaseAdminUrl, (client) =>
      client.query(`update network_config set chain = 'regtest' where network = 'bitcoin'`),
    );
  const worker = spawnScript('worker', 'main/worker.main.ts', workerEnv, logDir);
  lifecycle.add('worker', worker.stop, worker.kill);
  const ceilingWorker = spawnScript(
    'ceiling-worker',
    'bench/ceiling/empty-worker.main.ts',
    { ...childEnv, TEMPORAL_TASK_QUEUE: CEILING_TASK_QUEUE },
    logDir,
  );
  lifecycle.add('ceiling worker', ceilingWorker.stop, ceilingWorker.kill);
  // No /metrics listener: its default port is the worker's (WORKER_METRICS_PORT), and nothing here scrapes.
  const api = spawnScript(
    'api',
    'main/api.main.ts',
    { ...childEnv, PORT: String(apiPort), RATE_LIMIT_PER_SECOND: '0', RATE_LIMIT_WRITES_PER_SECOND: '0', API_METRICS_PORT: '0' },
    logDir,
  );
  lifecycle.add('api', api.stop, api.kill);
  const apiUrl = `http://127.0.0.1:${apiPort}`;

  const ready = (target: BenchChild, probe: () => Promise<boolean>) =>
    Promise.race([waitUntilReady(target, probe), aborted(lifecycle.signal)]);
  await Promise.all([
    ready(api, () => httpAnswers(`${apiUrl}/health`)),
    ready(worker, () => hasPollers(infrastructure.temporalAddress, settings.temporalNamespace, settings.temporalTaskQueue)),
    ready(ceilingWorker, () => hasPollers(infrastructure.temporalAddress, settings.temporalNamespace, CEILING_TASK_QUEUE)),
  ]);
  log.info(`API on ${apiUrl} (pid ${api.pid}), worker pid ${worker.pid}, ceiling worker pid ${ceilingWorker.pid}`);
  return {
    databaseUrl: infrastructure.databaseUrl,
    databaseAdminUrl: infrastructure.databaseAdminUrl,
    temporalAddress: infrastructure.temporalAddress,
    namespace: settings.temporalNamespace,
    taskQueue: settings.temporalTaskQueue,
    apiUrl,
    payloadKeys,
    api,
    worker,
    ceilingWorker,
    servers: () => ({ postgres: postmasterPid(path.join(dataDir, 'postgres')), temporal: temporalDevServerPid() }),
    logDir,
    bitcoin,
  };
}

/** The Temporal dev server the dev infrastructure started: a child of this process. */
function temporalDevServerPid(): number | undefined {
  return childrenOf(process.pid).find((pid) => commandName(pid) === 'temporal');
}

/**
 * The bare Koa ceiling in a child process of its own, serving fixed bytes per path (a JSON file
 * of routes it reads at start). Stopped with everything else at the end of the run.
 */
export async function startBareKoa(
  lifecycle: Lifecycle,
  logDir: string,
  name: string,
  routes: Record<string, { headers: Record<string, string>; bodyBase64: string }>,
): Promise<{ url: string; child: BenchChild }> {
  const port = await freePort();
  fs.mkdirSync(logDir, { recursive: true });
  const routesFile = path.join(logDir, `${name}-routes.json`);
  fs.writeFileSync(routesFile, JSON.stringify(routes));
  const child = spawnScript(
    name,
    'bench/ceiling/bare-koa.main.ts',
    { ...process.env, PORT: String(port), ROUTES_FILE: routesFile },
    logDir,
  );
  lifecycle.add(name, child.stop, child.kill);
  const url = `http://127.0.0.1:${port}`;
  const [firstPath] = Object.keys(routes);
  await Promise.race([waitUntilReady(child, () => httpAnswers(`${url}${firstPath ?? '/'}`)), aborted(lifecycle.signal)]);
  return { url, child };
}

/** How long the dev infrastructure may take to stop before the bench stops Postgres itself. */
const INFRASTRUCTURE_STOP_MS = 20_000;

/**
 * The dev infrastructure's own stop, bounded: the embedded-postgres library waits for an exit
 * that never comes when Postgres has already gone (a terminal's Ctrl-C reaches it too), so the
 * stop also ends once no postmaster runs on the folder. If it has not ended in time, the
 * postmaster named in postmaster.pid gets a fast shutdown (SIGINT) from here.
 */
async function stopInfrastructure(infrastructure: { stop(): Promise<void> }, postgresDir: string, log: Logger): Promise<void> {
  let settled = false;
  const stopped = infrastructure.stop().finally(() => (settled = true));
  // Left behind if Postgres went first: its late failure must not surface as an unhandled rejection.
  stopped.catch(() => undefined);
  const deadline = Date.now() + INFRASTRUCTURE_STOP_MS;
  while (!settled && Date.now() < deadline && postmasterPid(postgresDir) !== undefined) {
    await Promise.race([stopped, sleep(200)]);
  }
  if (settled) return stopped;
  const pid = postmasterPid(postgresDir);
  if (pid === undefined) return;
  log.warn(`Postgres did not stop through the dev infrastructure within ${INFRASTRUCTURE_STOP_MS} ms: stopping postmaster ${pid}`);
  process.kill(pid, 'SIGINT');
  for (let waited = 0; waited < INFRASTRUCTURE_STOP_MS && isAlive(pid); waited += 200) await sleep(200);
  if (isAlive(pid)) process.kill(pid, 'SIGKILL');
}

/** The postmaster's pid while Postgres runs on that folder (the file's first line), else undefined. */
function postmasterPid(postgresDir: string): number | undefined {
  try {
    const pid = Number(fs.readFileSync(path.join(postgresDir, 'postmaster.pid'), 'utf8').split('\n')[0]);
    return Number.isInteger(pid) && pid > 0 && isAlive(pid) ? pid : undefined;
  } catch {
    return undefined;
  }
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/** The environment without any of the service's settings: the bench sets what it means to, the rest are defaults. */
function withoutServiceSettings(env: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
  const copy = { ...env };
  for (const name of SETTING_VARIABLES) {
    delete copy[name];
    delete copy[`${name}_FILE`];
  }
  return copy;
}

async function hasPollers(address: string, namespace: string, taskQueue: string): Promise<boolean> {
  const connection = await Connection.connect({ address, connectTimeout: 2000 });
  try {
    const description = await connection.workflowService.describeTaskQueue({
      namespace,
      taskQueue: { name: taskQueue },
      taskQueueType: 1, // TASK_QUEUE_TYPE_WORKFLOW
    });
    return (description.pollers?.length ?? 0) > 0;
  } finally {
    await connection.close();
  }
}

function aborted(signal: AbortSignal): Promise<never> {
  return new Promise((_, reject) => {
    const fail = () => reject(signal.reason instanceof Error ? signal.reason : new Error('stop requested'));
    if (signal.aborted) fail();
    else signal.addEventListener('abort', fail, { once: true });
  });
}
