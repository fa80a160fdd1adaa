import fs from 'node:fs';
import path from 'node:path';
import { NativeConnection, Worker } from '@temporalio/worker';
import pg from 'pg';
import { createActivities } from '../activities';
import type { Clock } from '../activities/dependencies';
import type { Logger } from '../core/logger';
import { openOrm } from '../db/orm';

export interface WorkerOptions {
  databaseUrl: string;
  temporalAddress: string;
  namespace: string;
  taskQueue: string;
  log: Logger;
  clock?: Clock;
  /** A prebuilt workflow bundle (tests build one per run); otherwise workflows are bundled at start. */
  workflowBundlePath?: string;
}

export interface RunningWorker {
  /** Resolves when the worker has stopped polling and finished its in-flight tasks. */
  stop(): Promise<void>;
}

/** The workflows folder, whether this runs from TypeScript sources (tsx, jest) or compiled output. */
export function workflowsPath(): string {
  const candidates = ['index.ts', 'index.js'].map((file) => path.join(__dirname, '..', 'workflows', file));
  const found = candidates.find((candidate) => fs.existsSync(candidate));
  if (!found) throw new Error(`no workflows entry in ${candidates.join(' or ')}`);
  return found;
}

export async function startWorker(options: WorkerOptions): Promise<RunningWorker> {
  const orm = await openOrm(options.databaseUrl);
  const pool = new pg.Pool({ connectionString: options.databaseUrl, max: 5 });
  const connection = await NativeConnection.connect({ address: options.temporalAddress });
  const worker = await Worker.create({
    connection,
    namespace: options.namespace,
    taskQueue: options.taskQueue,
    ...(options.workflowBundlePath
      ? { workflowBundle: { codePath: options.workflowBundlePath } }
      : { workflowsPath: workflowsPath() }),
    activities: createActivities({ orm, pool, clock: options.clock ?? { now: () => new Date() }, log: options.log }),
  });
  const running = worker.run();
  options.log.info(`worker polling task queue ${options.taskQueue}`);
  return {
    async stop() {
      if (worker.getState() === 'RUNNING') worker.shutdown();
      await running;
      await connection.close();
      await pool.end();
      await orm.close(true);
    },
  };
}
