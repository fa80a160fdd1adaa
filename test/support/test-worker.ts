import { randomUUID } from 'node:crypto';
import path from 'node:path';
import { DefaultLogger, Runtime } from '@temporalio/worker';
import type { Activities } from '../../activities';
import { createLogger } from '../../core/logger';
import { startWorker } from '../../worker/worker';
import type { RunningWorker, WorkerOptions } from '../../worker/worker';
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
  options: { taskQueue?: string; chainConfirmationDelayMs?: number; travelRuleDeadlineMs?: number; wrapActivities?: (activities: Activities) => Activities } = {},
): Promise<TestWorker> {
  quietSdkLogs();
  const taskQueue = options.taskQueue ?? `test-worker-${randomUUID()}`;
  const denyList = [TEST_WORKER_SETTINGS.DENY_LIST_ADDRESSES as string];
  const settings: WorkerOptions['settings'] = {
    chainConfirmationDelayMs: options.chainConfirmationDelayMs ?? Number(TEST_WORKER_SETTINGS.CHAIN_CONFIRMATION_DELAY_MS),
    travelRuleDeadlineMs: options.travelRuleDeadlineMs ?? Number(TEST_WORKER_SETTINGS.TRAVEL_RULE_DEADLINE_MS),
    travelRuleThresholdEur: TEST_WORKER_SETTINGS.TRAVEL_RULE_THRESHOLD_EUR,
    denyListedAddresses: denyList,
    bankSettlementDelayMs: Number(TEST_WORKER_SETTINGS.BANK_SETTLEMENT_DELAY_MS),
    bankOutboxDir: path.join(testStack().dataDir, 'bank-outbox'),
    bankRejectIbans: [TEST_WORKER_SETTINGS.SIMULATED_BANK_REJECT_IBANS],
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
  return { taskQueue, denyList, stop: () => worker.stop() };
}

let sdkLogsQuieted = false;

/** Expected retries ("not confirmed yet") would flood the test output: the SDK logs errors only. */
function quietSdkLogs(): void {
  if (sdkLogsQuieted) return;
  sdkLogsQuieted = true;
  try {
    Runtime.install({ logger: new DefaultLogger('ERROR') });
  } catch {
    // Installed already by another worker of this process: keep that one.
  }
}
