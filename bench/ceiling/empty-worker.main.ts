/**
 * The workflow ceiling's worker, a child process of the bench: the empty workflows (bundled with
 * bundleWorkflowCode, as the project's worker bundles its own) on their own task queue, against
 * the same Temporal server.
 */
import { DefaultLogger, NativeConnection, Runtime, Worker, bundleWorkflowCode } from '@temporalio/worker';
import { createEmptyActivities } from './empty.activities';

async function main(): Promise<void> {
  Runtime.install({ logger: new DefaultLogger('WARN') });
  const address = required('TEMPORAL_ADDRESS');
  const taskQueue = required('TEMPORAL_TASK_QUEUE');
  const bundle = await bundleWorkflowCode({ workflowsPath: require.resolve('./empty.workflow'), logger: new DefaultLogger('WARN') });
  const connection = await NativeConnection.connect({ address });
  const worker = await Worker.create({
    connection,
    namespace: process.env.TEMPORAL_NAMESPACE || 'default',
    taskQueue,
    workflowBundle: bundle,
    activities: createEmptyActivities(),
  });
  const stop = () => {
    if (worker.getState() === 'RUNNING') worker.shutdown();
  };
  process.on('SIGTERM', stop);
  process.on('SIGINT', stop);
  await worker.run();
  await connection.close();
}

function required(name: string): string {
  const value = process.env[name];
  if (!value) throw new Error(`${name} must be set`);
  return value;
}

main().catch((error: unknown) => {
  process.stderr.write(`${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
  process.exit(1);
});
