import type { Client } from '@temporalio/client';
import { ScheduleAlreadyRunning, ScheduleOverlapPolicy } from '@temporalio/client';
import type { Logger } from '../core/logger';

export const RECONCILIATION_SCHEDULE_ID = 'ledger-reconciliation';
const EVERY = '15 minutes';
/** An operation still in progress after a day needs an operator. */
const STUCK_AFTER_MS = 24 * 60 * 60 * 1000;

/** Creates the reconciliation schedule once; later starts find it and leave it alone. */
export async function ensureReconciliationSchedule(client: Client, taskQueue: string, log: Logger): Promise<void> {
  try {
    await client.schedule.create({
      scheduleId: RECONCILIATION_SCHEDULE_ID,
      spec: { intervals: [{ every: EVERY }] },
      policies: { overlap: ScheduleOverlapPolicy.SKIP },
      action: {
        type: 'startWorkflow',
        workflowType: 'reconciliationWorkflow',
        workflowId: 'ledger-reconciliation',
        taskQueue,
        args: [{ stuckAfterMs: STUCK_AFTER_MS }],
      },
    });
    log.info(`created schedule ${RECONCILIATION_SCHEDULE_ID} (every ${EVERY})`);
  } catch (error) {
    if (!(error instanceof ScheduleAlreadyRunning)) throw error;
  }
}
