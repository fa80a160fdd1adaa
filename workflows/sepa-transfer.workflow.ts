import { ApplicationFailure, allHandlersFinished, condition, proxyActivities, setHandler, upsertSearchAttributes } from '@temporalio/workflow';
import type { Activities } from '../activities';
import type { SepaTransferInput } from '../activities/sepa-transfer.activities';
import { OPERATION_STATUS } from '../core/search-attributes';
import { DATABASE_STEP, EXTERNAL_CALL, POLL_UNTIL_FINAL } from './activity-options';
import { businessCause } from './business-cause';
import { statusQuery } from './definitions';
import type { OperationProgress } from './definitions';
import { ReservationGate } from './reservation-gate';

const database = proxyActivities<Activities>(DATABASE_STEP);
const external = proxyActivities<Activities>(EXTERNAL_CALL);
const polling = proxyActivities<Activities>(POLL_UNTIL_FINAL);

/** Reserve → pain.001 to the bank → settle on its acceptance, release on its rejection. */
export async function sepaTransferWorkflow(input: SepaTransferInput): Promise<OperationProgress> {
  const id = input.transferId;
  let progress: OperationProgress = { status: 'IN_PROGRESS', stage: 'RESERVING' };
  setHandler(statusQuery, () => progress);
  const gate = new ReservationGate(id);
  const report = (next: OperationProgress): void => {
    progress = next;
    upsertSearchAttributes([{ key: OPERATION_STATUS, value: next.status }]);
  };

  try {
    await database.reserveSepaTransfer(input);
  } catch (error) {
    report({ status: 'UNSUCCESSFUL', stage: 'NOT_RESERVED' });
    return gate.refused(businessCause(error));
  }
  gate.opened();
  report({ status: 'IN_PROGRESS', stage: 'RESERVED' });

  try {
    const { bankReference } = await external.submitSepaTransfer(id);
    report({ status: 'IN_PROGRESS', stage: 'SUBMITTED' });
    const answer = await polling.awaitBankAnswer(bankReference);
    if (answer.state === 'SETTLED') {
      await database.settleSepaTransfer(id);
      report({ status: 'SUCCESSFUL', stage: 'SETTLED' });
    } else {
      await database.releaseSepaTransfer(id, answer.reason);
      report({ status: 'UNSUCCESSFUL', stage: 'REJECTED', failureReason: answer.reason });
    }
  } catch (error) {
    const cause = businessCause(error);
    const reason = cause instanceof ApplicationFailure ? cause.message : 'the transfer failed';
    await database.releaseSepaTransfer(id, reason);
    report({ status: 'UNSUCCESSFUL', stage: 'REJECTED', failureReason: reason });
  }
  await condition(allHandlersFinished);
  return progress;
}
