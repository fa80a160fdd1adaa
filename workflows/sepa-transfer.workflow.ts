import { proxyActivities } from '@temporalio/workflow';
import type { Activities } from '../activities';
import type { SepaTransferInput } from '../activities/sepa-transfer.activities';
import { BOUNDED_DATABASE_STEP, DURABLE_DATABASE_STEP, EXTERNAL_CALL, POLL_UNTIL_FINAL } from './activity-options';
import type { OperationProgress } from './definitions';
import { OperationTracker } from './operation-tracker';

const reserving = proxyActivities<Activities>(BOUNDED_DATABASE_STEP);
const durable = proxyActivities<Activities>(DURABLE_DATABASE_STEP);
const external = proxyActivities<Activities>(EXTERNAL_CALL);
const polling = proxyActivities<Activities>(POLL_UNTIL_FINAL);

/**
 * Reserve → pain.001 to the bank → settle on its acceptance, release on its rejection. Once the
 * payment is submitted only the bank's answer decides; waiting has no deadline, because the bank
 * may still execute a payment we stopped waiting for.
 */
export async function sepaTransferWorkflow(input: SepaTransferInput): Promise<OperationProgress> {
  const id = input.transferId;
  const tracker = new OperationTracker(id);
  const open = await tracker.reserve(
    () => reserving.reserveSepaTransfer(input),
    () => durable.abandonSepaTransfer(id, 'the reservation could not be confirmed'),
  );
  if (!open) return tracker.finish();

  const submitted = await external.submitSepaTransfer(id);
  if ('closed' in submitted) {
    tracker.report({ status: submitted.closed.status, stage: submitted.closed.stage });
    return tracker.finish();
  }
  tracker.report({ status: 'IN_PROGRESS', stage: 'SUBMITTED' });
  const answer = await polling.awaitBankAnswer(submitted.bankReference);
  if (answer.state === 'SETTLED') {
    await durable.settleSepaTransfer(id);
    tracker.report({ status: 'SUCCESSFUL', stage: 'SETTLED' });
  } else {
    await durable.releaseSepaTransfer(id, answer.reason);
    tracker.report({ status: 'UNSUCCESSFUL', stage: 'REJECTED', failureReason: answer.reason });
  }
  return tracker.finish();
}
