import type { Client } from '@temporalio/client';
import { ScheduleAlreadyRunning, ScheduleOverlapPolicy } from '@temporalio/client';
import { incomingSepaContract } from '../contracts';
import type { Logger } from '../core/logger';

export const INCOMING_SEPA_SCHEDULE_ID = 'incoming-sepa';
/** INCOMING_SEPA_EVERY_SECONDS when unset: a deployment's, and `npm start`'s (a developer waits for a credit). */
export const INCOMING_SEPA_EVERY_SECONDS = { deployment: 60, development: 10 } as const;

/** Created once; a start with another interval updates it. An overlapping run skips: it would find the work done. */
export async function ensureIncomingSepaSchedule(client: Client, taskQueue: string, everySeconds: number, log: Logger): Promise<void> {
  const everyMs = everySeconds * 1000;
  try {
    await client.schedule.create({
      scheduleId: INCOMING_SEPA_SCHEDULE_ID,
      spec: { intervals: [{ every: everyMs }] },
      policies: { overlap: ScheduleOverlapPolicy.SKIP },
      action: {
        type: 'startWorkflow',
        workflowType: incomingSepaContract.workflowType,
        workflowId: incomingSepaContract.workflowId(''),
        taskQueue,
        args: [],
      },
    });
    log.info(`created schedule ${INCOMING_SEPA_SCHEDULE_ID} (every ${everySeconds} s)`);
  } catch (error) {
    if (!(error instanceof ScheduleAlreadyRunning)) throw error;
    const handle = client.schedule.getHandle(INCOMING_SEPA_SCHEDULE_ID);
    const current = (await handle.describe()).spec.intervals ?? [];
    if (current.length === 1 && current[0]?.every === everyMs) return;
    await handle.update((previous) => ({ ...previous, spec: { intervals: [{ every: everyMs }] } }));
    log.info(`schedule ${INCOMING_SEPA_SCHEDULE_ID} now runs every ${everySeconds} s`);
  }
}
