import fs from 'node:fs';
import path from 'node:path';
import { NativeConnection, Worker } from '@temporalio/worker';
import type { WorkerInterceptors } from '@temporalio/worker';
import pg from 'pg';
import { createActivities } from '../activities';
import { DomainErrorInterceptor } from '../activities/domain-error.interceptor';
import type { Activities } from '../activities';
import type { Clock } from '../activities/dependencies';
import { SimulatedBankAdapter } from '../activities/adapters/bank/simulated-bank.adapter';
import { SimulatedChainAdapter } from '../activities/adapters/chain/simulated-chain.adapter';
import { systemClock } from '../core/clock';
import type { Logger } from '../core/logger';
import type { DevelopmentSettings, Settings } from '../core/settings';
import { openOrm } from '../db/orm';

export interface WorkerOptions {
  databaseUrl: string;
  temporalAddress: string;
  namespace: string;
  taskQueue: string;
  log: Logger;
  /** Compliance settings (deadline, threshold, deny list) and the simulated adapters' knobs. */
  settings: WorkerSettings;
  clock?: Clock;
  /** A prebuilt workflow bundle (tests build one per run); otherwise workflows are bundled at start. */
  workflowBundlePath?: string;
  /** Decorates the activities (tests delay or observe a step); the real ones run inside. */
  wrapActivities?: (activities: Activities) => Activities;
}

export type WorkerSettings = Pick<Settings, 'travelRuleDeadlineMs' | 'travelRuleThresholdEur' | 'denyListedAddresses'> & {
  development: Pick<DevelopmentSettings, 'chainConfirmationDelayMs' | 'bankSettlementDelayMs' | 'bankOutboxDir' | 'bankRejectIbans'>;
};

export interface RunningWorker {
  /** Resolves when the worker has stopped polling and finished its in-flight tasks. */
  stop(): Promise<void>;
}

/**
 * One place turns every activity's domain errors into typed, non-retryable failures. Temporal runs
 * activity interceptors for local activities too, so a refusal reads the same either way. Shared
 * with the workflow tests' worker.
 */
export const WORKER_INTERCEPTORS: WorkerInterceptors = { activity: [() => ({ inbound: new DomainErrorInterceptor() })] };

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
  // An idle client that loses its server (a restart, a failover) must not crash the worker.
  pool.on('error', (error) => options.log.warn(`database pool: ${error.message}`));
  const connection = await NativeConnection.connect({ address: options.temporalAddress });
  const worker = await Worker.create({
    connection,
    namespace: options.namespace,
    taskQueue: options.taskQueue,
    interceptors: WORKER_INTERCEPTORS,
    ...(options.workflowBundlePath ? { workflowBundle: { codePath: options.workflowBundlePath } } : { workflowsPath: workflowsPath() }),
    activities: (options.wrapActivities ?? ((activities: Activities) => activities))(
      createActivities({
        orm,
        pool,
        clock: options.clock ?? systemClock,
        log: options.log,
        // The default adapters are simulations; real ones implement the same interfaces.
        chain: new SimulatedChainAdapter({ confirmationDelayMs: options.settings.development.chainConfirmationDelayMs }),
        bank: new SimulatedBankAdapter({
          outboxDir: options.settings.development.bankOutboxDir,
          settlementDelayMs: options.settings.development.bankSettlementDelayMs,
          rejectCreditorIbans: options.settings.development.bankRejectIbans,
        }),
        compliance: {
          travelRuleThresholdEur: options.settings.travelRuleThresholdEur,
          travelRuleDeadlineMs: options.settings.travelRuleDeadlineMs,
          denyListedAddresses: options.settings.denyListedAddresses,
        },
      }),
    ),
  });
  const running = worker.run();
  options.log.info(`worker polling task queue ${options.taskQueue}`);
  return {
    async stop() {
      try {
        if (worker.getState() === 'RUNNING') worker.shutdown();
        await running;
        await connection.close();
      } finally {
        await pool.end();
        await orm.close(true);
      }
    },
  };
}
