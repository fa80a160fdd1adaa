/**
 * `npm run start:cluster`: the production topology on one machine. Postgres (DATABASE_URL or embedded), the real Temporal
 * server on it (dev/temporal-cluster.ts), then `npm run worker`, `npm run sweeper` and `npm run api` as processes of their
 * own. Its own data folder, database and ports, so it runs beside `npm start`. A bad setting, a taken port or no way to
 * get the server stops it in seconds, before any long work. Ctrl-C stops the API, the sweeper, the worker, Temporal and
 * Postgres, in that order.
 */
import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { Connection } from '@temporalio/client';
import { localUrl } from '../core/listen-address';
import { formatPayloadKeys } from '../core/payload-codec';
import { railsOfWorker } from '../core/rails';
import { InvalidSettingsError, loadSettings, removeSecrets, withSecretsFromFiles } from '../core/settings';
import type { Logger } from '../core/logger';
import { openOrm } from '../db/orm';
import { startClusterInfrastructure } from '../dev/temporal-cluster';
import { START_CLUSTER_PORTS } from '../dev/temporal-cluster-config';
import { ClusterPreflightError, clusterPreflightProblems } from './cluster-preflight';
import { ensureDemoPartner } from './demo-partner';
import { withDevelopmentPayloadKey } from './development-payload-key';
import { DEPOSIT_SEED_VARIABLES, MissingDepositKeysError, depositAccountKeys, depositKeyVariables } from './deposit-keys';
import { depositKeysOrigin, rederiveDevelopmentPartners, withDevelopmentDepositSeed } from './development-deposit-seed';
import { PROJECT_ROOT, exitOnFailure, mainLogger, onShutdownSignal, requireSetting } from './process-support';

/** Defaults apart from `npm start`'s (.data, 54320, 3000, 9464/9465/9466); a variable set in the environment wins. */
const CLUSTER_DEFAULTS: Readonly<Record<string, string>> = {
  DATA_DIR: '.data/cluster',
  EMBEDDED_POSTGRES_PORT: '54330',
  PORT: '3100',
  WORKER_METRICS_PORT: '9474',
  WORKER_HTTP_PORT: '9475',
  API_METRICS_PORT: '9476',
};
/** The sweeper's two listeners, as the worker's (it reads the same variables): beside them. */
const SWEEPER_PORTS: Readonly<Record<string, string>> = { WORKER_METRICS_PORT: '9477', WORKER_HTTP_PORT: '9478' };
const TSX_CLI = path.join(PROJECT_ROOT, 'node_modules/tsx/dist/cli.mjs');
const READY_TIMEOUT_MS = 120_000;
const STOP_GRACE_MS = 30_000;

/** What this process started, stopped in reverse order on Ctrl-C or on a failed start. */
const stops: Array<() => Promise<void>> = [];

async function stopAll(): Promise<void> {
  for (const stop of stops.splice(0).reverse()) await stop().catch((error: unknown) => process.stderr.write(`${String(error)}\n`));
}

async function main(): Promise<void> {
  // Secrets given as files are read here and handed to the children as values; none stays in this process's environment,
  // which the Temporal server and its tools inherit.
  const env = { ...CLUSTER_DEFAULTS, ...setVariables(withSecretsFromFiles(process.env)) };
  removeSecrets(process.env);
  // Every variable read at once: a bad one stops here, in a second, with its line.
  const settings = loadSettings(env, PROJECT_ROOT);
  const log = mainLogger('start-cluster', settings, 'pretty');
  onShutdownSignal(log, stopAll);
  const { dataDir, host, listenHosts } = settings.development;

  // Production entries refuse an unaccepted simulated rail: here, accept what the worker will simulate, and say so.
  const accepted = settings.acceptedSimulatedRails;
  const simulatedRails = (accepted.length > 0 ? accepted : railsOfWorker(settings).simulated).join(',');
  const childEnv: Record<string, string> = {
    ...env,
    DATA_DIR: dataDir,
    SIMULATED_RAILS: simulatedRails,
    // `npm run worker` and `npm run api` bind every interface unless told: here HOST (or a listener's own *_HOST).
    API_HOST: listenHosts.api,
    API_METRICS_HOST: listenHosts.apiMetrics,
    WORKER_HOST: listenHosts.worker,
  };
  // As `npm start`: deposit addresses from a development seed in the data folder, unless the deposit key variables are set.
  const depositSettings = withDevelopmentDepositSeed(settings, { create: true });
  const depositKeys = depositAccountKeys(depositSettings);
  // Only the sweeper is given the seeds; the worker and the API hold the extended public keys, even when seeds were set.
  const seedVariables = Object.values(DEPOSIT_SEED_VARIABLES);
  const withoutSeeds = withoutVariables(childEnv, seedVariables);
  const workerEnv = { ...withoutSeeds, ...depositKeyVariables(depositSettings, 'worker') };
  const sweeperEnv = {
    ...withoutSeeds,
    ...asSecretFiles(depositKeyVariables(depositSettings, 'sweeper'), seedVariables, path.join(dataDir, 'secrets')),
    ...SWEEPER_PORTS,
  };
  // The API signs nothing: no hot wallet key either.
  const apiEnv = {
    ...withoutVariables(
      withoutSeeds,
      Object.keys(withoutSeeds).filter((name) => /^(EVM|UTXO)_HOT_WALLET_KEY_/.test(name)),
    ),
    ...depositKeyVariables(depositSettings, 'api'),
  };
  const problems = await clusterPreflightProblems({
    childEnv: workerEnv,
    projectRoot: PROJECT_ROOT,
    temporalPorts: START_CLUSTER_PORTS,
    host,
  });
  if (problems.length > 0) throw new ClusterPreflightError(problems);
  // As `npm start`: a development key kept in the data folder, unless PAYLOAD_ENCRYPTION_KEYS is set (production entries require it).
  const keys = requireSetting(withDevelopmentPayloadKey(settings, { create: true }).temporal.payloadKeys, 'PAYLOAD_ENCRYPTION_KEYS');
  for (const env of [workerEnv, sweeperEnv, apiEnv]) env.PAYLOAD_ENCRYPTION_KEYS = formatPayloadKeys(keys);

  const infrastructure = await startClusterInfrastructure(settings, { ports: START_CLUSTER_PORTS, ownProcessGroup: true, log });
  stops.push(() => infrastructure.stop());
  for (const env of [workerEnv, sweeperEnv, apiEnv]) {
    env.DATABASE_URL = infrastructure.databaseUrl;
    env.TEMPORAL_ADDRESS = infrastructure.temporalAddress;
  }

  const orm = await openOrm(infrastructure.databaseUrl, 2);
  await rederiveDevelopmentPartners(orm, depositKeys, log);
  const demo = await ensureDemoPartner(orm, dataDir, depositKeys);
  await orm.close(true);

  const logDir = path.join(dataDir, 'logs');
  const worker = startEntryPoint('worker', 'main/worker.main.ts', workerEnv, logDir, log);
  stops.push(() => worker.stop());
  await untilReady(worker, () => hasWorkflowPoller(infrastructure.temporalAddress, settings.temporalNamespace, settings.temporalTaskQueue));
  const sweeper = startEntryPoint('sweeper', 'main/sweeper.main.ts', sweeperEnv, logDir, log);
  stops.push(() => sweeper.stop());
  await untilReady(sweeper, () =>
    hasWorkflowPoller(infrastructure.temporalAddress, settings.temporalNamespace, settings.temporalSweeperTaskQueue),
  );
  const apiUrl = localUrl(listenHosts.api, settings.port);
  const api = startEntryPoint('api', 'main/api.main.ts', apiEnv, logDir, log);
  stops.push(() => api.stop());
  await untilReady(api, async () => (await fetch(`${apiUrl}/health/ready`)).status === 200);

  // What the API binds from childEnv: API_METRICS_PORT (this file's default) on its host.
  const { apiMetrics } = settings.development;
  const { sdkMetricsPort } = settings.workerObservability;
  process.stdout.write(
    [
      '',
      `API:              ${apiUrl}${apiMetrics ? `, metrics ${localUrl(apiMetrics.host, apiMetrics.port)}/metrics` : ''}   (log: ${api.logPath})`,
      `Worker:           task queue ${settings.temporalTaskQueue}${sdkMetricsPort ? `, metrics ${localUrl(listenHosts.worker, sdkMetricsPort)}/metrics` : ''}   (log: ${worker.logPath})`,
      `Sweeper:          task queue ${settings.temporalSweeperTaskQueue}, the only process with the deposit seeds   (log: ${sweeper.logPath})`,
      `Temporal server:  ${infrastructure.temporalAddress}, metrics ${localUrl(host, START_CLUSTER_PORTS.metrics)}/metrics   (config and log: ${path.join(dataDir, 'temporal-cluster')})`,
      `Postgres:         ${withoutPassword(infrastructure.databaseUrl)}, and Temporal's databases temporal, temporal_visibility`,
      `Payload key:      ${settings.temporal.payloadKeys ? 'PAYLOAD_ENCRYPTION_KEYS' : `${path.join(dataDir, 'payload-encryption-keys')} (development; production entries require PAYLOAD_ENCRYPTION_KEYS)`}`,
      `Deposit keys:     ${depositKeysOrigin(settings)}`,
      `Simulated rails:  ${simulatedRails || 'none'} (SIMULATED_RAILS)`,
      `Demo API key:     ${demo.apiKey}`,
      '',
      `Try: curl -H "Authorization: Bearer ${demo.apiKey}" ${apiUrl}/v1/partner/balances`,
      `The server has no Web UI (docker-compose.yml runs one); the CLI: temporal --address ${infrastructure.temporalAddress} workflow list`,
      'Ctrl-C stops everything.',
      '',
    ].join('\n'),
  );
}

interface EntryPoint {
  name: string;
  child: ChildProcess;
  logPath: string;
  stop(): Promise<void>;
}

/** In a process group of its own: a terminal's Ctrl-C reaches only this process, which stops the children in order. */
function startEntryPoint(name: string, script: string, env: Record<string, string>, logDir: string, log: Logger): EntryPoint {
  fs.mkdirSync(logDir, { recursive: true });
  const logPath = path.join(logDir, `${name}.log`);
  const logFile = fs.openSync(logPath, 'a');
  const child = spawn(process.execPath, [TSX_CLI, script], {
    cwd: PROJECT_ROOT,
    env,
    stdio: ['ignore', logFile, logFile],
    detached: true,
  });
  fs.closeSync(logFile);
  child.on('error', (error) => log.error(`${name}: ${error.message}`));
  // Ending before it is stopped in order (a Ctrl-C during the start, a crash) takes it along.
  process.once('exit', () => {
    if (child.pid !== undefined && child.exitCode === null && child.signalCode === null) signalGroup(child.pid, 'SIGKILL');
  });
  log.info(`started the ${name} (pid ${child.pid}), log ${logPath}`);
  return { name, child, logPath, stop: () => stopProcessGroup(child) };
}

/** SIGTERM to the group (tsx and the script it runs), then SIGKILL if it has not exited in time. */
async function stopProcessGroup(child: ChildProcess): Promise<void> {
  if (child.pid === undefined || child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  signalGroup(child.pid, 'SIGTERM');
  const timeout = setTimeout(() => signalGroup(child.pid!, 'SIGKILL'), STOP_GRACE_MS);
  await exited;
  clearTimeout(timeout);
}

function signalGroup(pid: number, signal: NodeJS.Signals): void {
  try {
    process.kill(-pid, signal);
  } catch {
    // The group is gone.
  }
}

async function untilReady(entry: EntryPoint, probe: () => Promise<boolean>): Promise<void> {
  const deadline = Date.now() + READY_TIMEOUT_MS;
  while (Date.now() < deadline) {
    if (entry.child.exitCode !== null || entry.child.signalCode !== null) {
      throw new Error(`the ${entry.name} exited (${entry.child.exitCode ?? entry.child.signalCode}); see ${entry.logPath}`);
    }
    if (await probe().catch(() => false)) return;
    await new Promise((resolve) => setTimeout(resolve, 500));
  }
  throw new Error(`the ${entry.name} was not ready after ${READY_TIMEOUT_MS} ms; see ${entry.logPath}`);
}

/** The worker is ready when Temporal sees it polling the workflow task queue. */
async function hasWorkflowPoller(address: string, namespace: string, taskQueue: string): Promise<boolean> {
  const connection = await Connection.connect({ address });
  try {
    const described = await connection.workflowService.describeTaskQueue({
      namespace,
      taskQueue: { name: taskQueue },
      taskQueueType: 1 /* TASK_QUEUE_TYPE_WORKFLOW */,
    });
    return (described.pollers ?? []).length > 0;
  } finally {
    await connection.close();
  }
}

/** The environment without empty variables (an empty variable is an unset one), so the cluster's defaults apply. */
function setVariables(environment: NodeJS.ProcessEnv): Record<string, string> {
  return Object.fromEntries(Object.entries(environment).filter((entry): entry is [string, string] => Boolean(entry[1])));
}

function withoutVariables(env: Readonly<Record<string, string>>, names: readonly string[]): Record<string, string> {
  return Object.fromEntries(Object.entries(env).filter(([key]) => !names.includes(key)));
}

/**
 * The `names` among `variables` as files in `dir` (mode 600), given as `NAME_FILE`: out of the environment, which the child's
 * tsx parent keeps for its life.
 */
function asSecretFiles(variables: Readonly<Record<string, string>>, names: readonly string[], dir: string): Record<string, string> {
  fs.mkdirSync(dir, { recursive: true, mode: 0o700 });
  return Object.fromEntries(
    Object.entries(variables).map(([name, value]) => {
      if (!names.includes(name)) return [name, value];
      const file = path.join(dir, name.toLowerCase());
      fs.writeFileSync(file, value, { mode: 0o600 });
      return [`${name}_FILE`, file];
    }),
  );
}

function withoutPassword(databaseUrl: string): string {
  const url = new URL(databaseUrl);
  if (url.password) url.password = '***';
  return url.toString();
}

main().catch(exitOnFailure([InvalidSettingsError, ClusterPreflightError, MissingDepositKeysError], stopAll));
