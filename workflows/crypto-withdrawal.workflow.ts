import { ApplicationFailure, allHandlersFinished, condition, proxyActivities, setHandler, upsertSearchAttributes } from '@temporalio/workflow';
import type { Activities } from '../activities';
import type { CryptoWithdrawalInput } from '../activities/crypto-withdrawal.activities';
import { OPERATION_STATUS } from '../core/search-attributes';
import { DATABASE_STEP, EXTERNAL_CALL, POLL_UNTIL_FINAL } from './activity-options';
import { statusQuery, travelRuleDataCompletedSignal } from './definitions';
import type { OperationProgress, TravelRuleCompletion } from './definitions';
import { businessCause } from './business-cause';
import { ReservationGate } from './reservation-gate';

const database = proxyActivities<Activities>(DATABASE_STEP);
const external = proxyActivities<Activities>(EXTERNAL_CALL);
const polling = proxyActivities<Activities>(POLL_UNTIL_FINAL);

/**
 * Reserve amount + fee → travel-rule check (deny list; above the EUR threshold to a
 * non-custodial or other wallet, wait for the travelRuleDataCompleted signal until a deadline)
 * → broadcast → confirmation → settle. Any failure after the reservation releases the funds.
 */
export async function cryptoWithdrawalWorkflow(input: CryptoWithdrawalInput): Promise<OperationProgress> {
  const id = input.withdrawalId;
  let progress: OperationProgress = { status: 'IN_PROGRESS', stage: 'RESERVING' };
  let travelRuleCompletion: TravelRuleCompletion | undefined;
  setHandler(statusQuery, () => progress);
  setHandler(travelRuleDataCompletedSignal, (completion) => {
    travelRuleCompletion = completion ?? {};
  });
  const gate = new ReservationGate(id);

  const report = (next: OperationProgress): void => {
    progress = next;
    upsertSearchAttributes([{ key: OPERATION_STATUS, value: next.status }]);
  };

  try {
    await database.reserveWithdrawal(input);
  } catch (error) {
    report({ status: 'UNSUCCESSFUL', stage: 'NOT_RESERVED' });
    return gate.refused(businessCause(error));
  }
  gate.opened();
  report({ status: 'IN_PROGRESS', stage: 'RESERVED' });

  const fail = async (reason: string): Promise<void> => {
    await database.releaseWithdrawal(id, reason);
    report({ status: 'UNSUCCESSFUL', stage: 'FAILED', failureReason: reason });
  };

  try {
    const travelRule = await database.checkTravelRule(id);
    if (travelRule.deniedReason) {
      await fail(travelRule.deniedReason);
    } else {
      let cleared = true;
      if (travelRule.requiresCompletion) {
        await database.setWithdrawalProgress(id, { status: 'IN_PROGRESS_TR_DATA', stage: 'AWAITING_TRAVEL_RULE_DATA' });
        report({ status: 'IN_PROGRESS_TR_DATA', stage: 'AWAITING_TRAVEL_RULE_DATA' });
        cleared = await condition(() => travelRuleCompletion !== undefined, travelRule.deadlineMs);
        if (cleared) {
          await database.recordTravelRuleCompletion(id, { ...(travelRuleCompletion ?? {}) });
          await database.setWithdrawalProgress(id, { status: 'IN_PROGRESS', stage: 'TRAVEL_RULE_CLEARED' });
          report({ status: 'IN_PROGRESS', stage: 'TRAVEL_RULE_CLEARED' });
        } else {
          await fail('travel-rule data was not completed before the deadline');
        }
      }
      if (cleared) {
        const broadcast = await external.broadcastWithdrawal(id);
        report({ status: 'IN_PROGRESS', stage: 'BROADCAST' });
        await polling.awaitWithdrawalConfirmation({ network: input.network, ...broadcast });
        await database.settleWithdrawal(id);
        report({ status: 'SUCCESSFUL', stage: 'SETTLED' });
      }
    }
  } catch (error) {
    const cause = businessCause(error);
    await fail(cause instanceof ApplicationFailure ? cause.message : 'the withdrawal failed');
  }
  await condition(allHandlersFinished);
  return progress;
}
