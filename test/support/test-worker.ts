import { randomUUID } from 'node:crypto';
import type { WorkerActivities } from '../../activities';
import { createLogger } from '../../core/logger';
import { startWorker } from '../../worker/worker';
import { testTemporalAccess } from './temporal-access';
import type { RunningWorker, WorkerSettings } from '../../worker/worker';
import { quietSdkLogs } from './sdk-logs';
import { testStack } from './stack';
import { TEST_WORKER_SETTINGS } from './test-config';

export interface TestWorker extends RunningWorker {
  taskQueue: string;
  /** The worker's deny list: tests change it while the worker runs. */
  denyList: string[];
}

/**
 * A real worker in this test process, on a task queue of its own, for tests that need other
 * timings than the run's shared worker (a confirmation that takes seconds) or a decorated step.
 */
export async function startTestWorker(
  options: {
    taskQueue?: string;
    chainConfirmationDelayMs?: number;
    travelRuleDeadlineMs?: number;
    wrapActivities?: (activities: WorkerActivities) => WorkerActivities;
  } = {},
): Promise<TestWorker> {
  quietSdkLogs();
  const taskQueue = options.taskQueue ?? `test-worker-${randomUUID()}`;
  const denyList = [TEST_WORKER_SETTINGS.DENY_LIST_ADDRESSES as string];
  const settings: WorkerSettings = {
    travelRuleDeadlineMs: options.travelRuleDeadlineMs ?? Number(TEST_WORKER_SETTINGS.TRAVEL_RULE_DEADLINE_MS),
    travelRuleThresholdEur: TEST_WORKER_SETTINGS.TRAVEL_RULE_THRESHOLD_EUR,
    denyListedAddresses: denyList,
    temporal: testTemporalAccess(),
    development: {
      chainConfirmationDelayMs: options.chainConfirmationDelayMs ?? Number(TEST_WORKER_SETTINGS.CHAIN_CONFIRMATION_DELAY_MS),
      bankSettlementDelayMs: Number(TEST_WORKER_SETTINGS.BANK_SETTLEMENT_DELAY_MS),
      bankRejectIbans: [TEST_WORKER_SETTINGS.SIMULATED_BANK_REJECT_IBANS],
    },
  };
  const worker = await startWorker({
    databaseUrl: testStack().databaseUrl,
    temporalAddress: testStack().temporalAddress,
    namespace: testStack().namespace,
    taskQueue,
    workflowBundlePath: testStack().workflowBundlePath,
    log: createLogger('test-worker', 'error'),
    settings,
    ...(options.wrapActivities ? { wrapActivities: options.wrapActivities } : {}),
  });
  return { taskQueue, denyList, simulatedRails: worker.simulatedRails, stop: () => worker.stop() };
}
