import fs from 'node:fs';
import path from 'node:path';
import type { MikroORM } from '@mikro-orm/postgresql';
import { DefaultLogger, NativeConnection, Worker, bundleWorkflowCode } from '@temporalio/worker';
import type { WorkerInterceptors } from '@temporalio/worker';
import type pg from 'pg';
import { DomainErrorInterceptor } from '../activities/domain-error.interceptor';
import { PayloadGuardInterceptor } from '../activities/payload-guard.interceptor';
import { requestIdInterceptors } from '../activities/request-id.interceptor';
import { EvmChainIdentityGuard } from '../activities/adapters/chain/evm/evm-chain-identity';
import type { Clock } from '../core/clock';
import { systemClock } from '../core/clock';
import type { Logger } from '../core/logger';
import { connectPatiently } from '../core/patient-connect';
import type { Rail } from '../core/rails';
import type { ListenAddress, Settings } from '../core/settings';
import { temporalConnectionOptions, temporalDataConverter } from '../core/temporal-connection';
import { DEFAULT_DATABASE_TIMEOUTS } from '../db/connection-settings';
import { openOrm } from '../db/orm';
import { sqlPoolOf } from '../db/orm-sql-pool';
import { startWorkerHttpServer, workerReadiness } from './health-server';
import type { WorkerHttpServer } from './health-server';
import { createWorkerMetrics } from './metrics';
import type { WorkerMetrics } from './metrics';

/** Where a worker process polls and what it connects to: the general worker's and the sweeper's alike. */
export interface WorkerProcessOptions {
  databaseUrl: string;
  temporalAddress: string;
  namespace: string;
  taskQueue: string;
  log: Logger;
  settings: Partial<Pick<Settings, 'databaseTimeouts' | 'temporal'>>;
  clock?: Clock;
  /** A prebuilt workflow bundle (tests build one per run); otherwise workflows are bundled at start. */
  workflowBundlePath?: string;
  /** The worker's HTTP server (/health/live, /health/ready, /metrics of its own) on this address (port 0: any free one); absent, none. */
  http?: ListenAddress;
}

/** What a process's activities are built from: one pool, one chain-identity guard, one metrics registry. */
export interface WorkerProcessParts {
  orm: MikroORM;
  pool: pg.Pool;
  clock: Clock;
  log: Logger;
  identityGuard: EvmChainIdentityGuard;
  metrics: WorkerMetrics;
}

export interface RunningWorker {
  /** Where its HTTP server listens, when it has one (options.http). */
  httpUrl?: string;
  /** The rails this worker simulates (no bank or chain moves their money): shown by /health/ready and payments_rail_simulated. */
  simulatedRails: readonly Rail[];
  /** Resolves when the worker has stopped polling and finished its in-flight tasks. */
  stop(): Promise<void>;
}

/**
 * Domain errors become typed, non-retryable failures in one place (local activities too); the request id goes onto
 * the log context first, so their lines carry it. Shared with the workflow tests' worker.
 */
export const WORKER_INTERCEPTORS: WorkerInterceptors = {
  activity: [() => ({ inbound: new PayloadGuardInterceptor() }), requestIdInterceptors, () => ({ inbound: new DomainErrorInterceptor() })],
};

/** Bundled with the workflow code: whoever prebuilds a bundle (tests) must pass them to bundleWorkflowCode too. */
export const WORKFLOW_INTERCEPTOR_MODULES: readonly string[] = [
  // First: an unreadable payload is stopped before anything else looks at it.
  sourceFile(path.join('workflows', 'payload-guard.interceptor')),
  sourceFile(path.join('workflows', 'request-id.interceptor')),
];

/** The workflows folder, whether this runs from TypeScript sources (tsx, jest) or compiled output. */
export function workflowsPath(): string {
  return sourceFile(path.join('workflows', 'index'));
}

function sourceFile(pathWithoutExtension: string): string {
  const candidates = ['.ts', '.js'].map((extension) => path.join(__dirname, '..', `${pathWithoutExtension}${extension}`));
  const found = candidates.find((candidate) => fs.existsSync(candidate));
  if (!found) throw new Error(`no ${pathWithoutExtension} in ${candidates.join(' or ')}`);
  return found;
}

/** The workflow code bundled once with the production interceptors, written to `folder`: for every worker of a process or run. */
export async function writeWorkflowBundle(folder: string): Promise<string> {
  const bundle = await bundleWorkflowCode({
    workflowsPath: workflowsPath(),
    workflowInterceptorModules: [...WORKFLOW_INTERCEPTOR_MODULES],
    logger: new DefaultLogger('WARN'),
  });
  const workflowBundlePath = path.join(folder, 'workflow-bundle.js');
  fs.writeFileSync(workflowBundlePath, bundle.code);
  return workflowBundlePath;
}

/**
 * A Temporal worker on one task queue with the activities `activitiesOf` builds: its database pool, its connection, its
 * metrics and health server, and a stop that drains it. The general worker and the sweeper differ only in what they pass.
 */
export async function runWorkerProcess(
  options: WorkerProcessOptions,
  /** Undefined for a worker that pays out on no rail: the sweeper. */
  simulatedRails: readonly Rail[] | undefined,
  activitiesOf: (parts: WorkerProcessParts) => object,
): Promise<RunningWorker> {
  const timeouts = options.settings.databaseTimeouts ?? DEFAULT_DATABASE_TIMEOUTS;
  const temporalAccess = options.settings.temporal;
  if (!temporalAccess?.payloadKeys)
    throw new Error('the worker needs PAYLOAD_ENCRYPTION_KEYS: Temporal payloads are never read or written in clear');
  // One pool for the activities: the ORM's, which their plain SQL runs on too.
  const orm = await openOrm(options.databaseUrl, 15, timeouts);
  const pool = sqlPoolOf(orm);
  const connection = await connectPatiently(
    'worker',
    () => NativeConnection.connect(temporalConnectionOptions(options.temporalAddress, temporalAccess)),
    options.log,
  );
  const metrics = createWorkerMetrics({ simulatedRails });
  const clock = options.clock ?? systemClock;
  // One per process for every chain call: /health/ready says what any last found.
  const identityGuard = new EvmChainIdentityGuard({ pool, clock, log: options.log });
  // Metrics outermost: they count each attempt's final outcome, after the domain-error mapping.
  const interceptors: WorkerInterceptors = { activity: [metrics.interceptor, ...(WORKER_INTERCEPTORS.activity ?? [])] };
  const worker = await Worker.create({
    connection,
    // Never in clear; what is not ours is marked, not thrown on, so it cannot jam a workflow (core/unreadable-payload.ts).
    dataConverter: temporalDataConverter(temporalAccess, {
      refused: 'mark',
      onRefused: (reason) => {
        metrics.payloadRefused();
        options.log.warn(`refused a Temporal payload: ${reason}`);
      },
    }),
    namespace: options.namespace,
    taskQueue: options.taskQueue,
    ...(options.workflowBundlePath
      ? { workflowBundle: { codePath: options.workflowBundlePath }, interceptors }
      : { workflowsPath: workflowsPath(), interceptors: { ...interceptors, workflowModules: [...WORKFLOW_INTERCEPTOR_MODULES] } }),
    activities: activitiesOf({ orm, pool, clock, log: options.log, identityGuard, metrics }),
  });
  const running = worker.run();
  options.log.info(`worker polling task queue ${options.taskQueue}`);
  metrics.observe(() => worker.getStatus());
  let httpServer: WorkerHttpServer | undefined;
  const stop = async () => {
    try {
      if (worker.getState() === 'RUNNING') worker.shutdown();
      await running;
      await connection.close();
    } finally {
      // Last: readiness answers 503 while the worker drains.
      await httpServer?.stop();
      await orm.close(true);
    }
  };
  if (options.http !== undefined) {
    try {
      httpServer = await startWorkerHttpServer({
        ...options.http,
        registry: metrics.registry,
        readiness: () => workerReadiness(() => worker.getStatus(), pool, simulatedRails ?? [], identityGuard),
        log: options.log,
      });
    } catch (error) {
      await stop();
      throw error;
    }
  }
  return { ...(httpServer ? { httpUrl: httpServer.url } : {}), simulatedRails: simulatedRails ?? [], stop };
}
