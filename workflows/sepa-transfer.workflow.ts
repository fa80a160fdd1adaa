import { allHandlersFinished, condition, proxyActivities, setHandler, upsertSearchAttributes } from '@temporalio/workflow';
import type { Activities } from '../activities';
import type { SepaTransferInput } from '../activities/sepa-transfer.activities';
import { isFinal } from '../core/operation-status';
import { OPERATION_STATUS } from '../core/search-attributes';
import { BOUNDED_DATABASE_STEP, DURABLE_DATABASE_STEP, EXTERNAL_CALL, POLL_UNTIL_FINAL } from './activity-options';
import { businessCause, isBusinessFailure } from './business-cause';
import { statusQuery } from './definitions';
import type { OperationProgress } from './definitions';
import { ReservationGate } from './reservation-gate';

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
  let progress: OperationProgress = { status: 'IN_PROGRESS', stage: 'RESERVING' };
  setHandler(statusQuery, () => progress);
  const gate = new ReservationGate(id);
  const report = (next: OperationProgress): void => {
    progress = next;
    upsertSearchAttributes([{ key: OPERATION_STATUS, value: next.status }]);
  };
  const finish = async (): Promise<OperationProgress> => {
    await condition(allHandlersFinished);
    return progress;
  };

  try {
    const state = await reserving.reserveSepaTransfer(input);
    gate.opened();
    if (isFinal(state.status)) {
      report({ status: state.status, stage: state.stage });
      return finish();
    }
  } catch (error) {
    const cause = businessCause(error);
    if (!isBusinessFailure(cause)) await durable.abandonSepaTransfer(id, 'the reservation could not be confirmed');
    report({ status: 'UNSUCCESSFUL', stage: 'NOT_RESERVED' });
    return gate.refused(cause);
  }
  report({ status: 'IN_PROGRESS', stage: 'RESERVED' });

  const submitted = await external.submitSepaTransfer(id);
  if ('closed' in submitted) {
    report({ status: submitted.closed.status, stage: submitted.closed.stage });
    return finish();
  }
  report({ status: 'IN_PROGRESS', stage: 'SUBMITTED' });
  const answer = await polling.awaitBankAnswer(submitted.bankReference);
  if (answer.state === 'SETTLED') {
    await durable.settleSepaTransfer(id);
    report({ status: 'SUCCESSFUL', stage: 'SETTLED' });
  } else {
    await durable.releaseSepaTransfer(id, answer.reason);
    report({ status: 'UNSUCCESSFUL', stage: 'REJECTED', failureReason: answer.reason });
  }
  return finish();
}
