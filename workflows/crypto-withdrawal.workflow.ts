import { ApplicationFailure, allHandlersFinished, condition, proxyActivities, setHandler, upsertSearchAttributes } from '@temporalio/workflow';
import type { Activities } from '../activities';
import type { CryptoWithdrawalInput } from '../activities/crypto-withdrawal.activities';
import { isFinal } from '../core/operation-status';
import { OPERATION_STATUS } from '../core/search-attributes';
import { BOUNDED_DATABASE_STEP, DEFINITE_FAILURE_TYPES, DURABLE_DATABASE_STEP, EXTERNAL_CALL, POLL_UNTIL_FINAL } from './activity-options';
import { businessCause, isBusinessFailure } from './business-cause';
import { statusQuery, travelRuleDataCompletedSignal } from './definitions';
import type { OperationProgress, TravelRuleCompletion } from './definitions';
import { ReservationGate } from './reservation-gate';

const reserving = proxyActivities<Activities>(BOUNDED_DATABASE_STEP);
const durable = proxyActivities<Activities>(DURABLE_DATABASE_STEP);
const external = proxyActivities<Activities>(EXTERNAL_CALL);
const polling = proxyActivities<Activities>(POLL_UNTIL_FINAL);

/**
 * Reserve amount + fee → travel-rule check (deny list; above the EUR threshold to a
 * non-custodial or other wallet, wait for the travelRuleDataCompleted signal until a deadline)
 * → broadcast → confirmation → settle.
 *
 * Before the broadcast any failure releases the funds. From the broadcast on the coins may have
 * left: only a definite answer (the chain rejected or failed the transaction) releases them;
 * anything uncertain keeps retrying, or fails the workflow with the funds still held, for an
 * operator to resolve. Refunding money that has left would be the worse error.
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
  const finish = async (): Promise<OperationProgress> => {
    await condition(allHandlersFinished);
    return progress;
  };
  const fail = async (reason: string): Promise<OperationProgress> => {
    await durable.releaseWithdrawal(id, reason);
    report({ status: 'UNSUCCESSFUL', stage: 'FAILED', failureReason: reason });
    return finish();
  };

  try {
    const state = await reserving.reserveWithdrawal(input);
    gate.opened();
    // A re-run (reset, or the same id after retention) of a withdrawal that is already over.
    if (isFinal(state.status)) {
      report({ status: state.status, stage: state.stage });
      return finish();
    }
  } catch (error) {
    const cause = businessCause(error);
    if (!isBusinessFailure(cause)) await durable.abandonWithdrawal(id, 'the reservation could not be confirmed');
    report({ status: 'UNSUCCESSFUL', stage: 'NOT_RESERVED' });
    return gate.refused(cause);
  }
  report({ status: 'IN_PROGRESS', stage: 'RESERVED' });

  try {
    const travelRule = await durable.checkTravelRule(id);
    if (travelRule.deniedReason) return fail(travelRule.deniedReason);
    if (travelRule.requiresCompletion) {
      await durable.setWithdrawalProgress(id, { status: 'IN_PROGRESS_TR_DATA', stage: 'AWAITING_TRAVEL_RULE_DATA' });
      report({ status: 'IN_PROGRESS_TR_DATA', stage: 'AWAITING_TRAVEL_RULE_DATA' });
      if (!(await condition(() => travelRuleCompletion !== undefined, travelRule.deadlineMs))) {
        return fail('travel-rule data was not completed before the deadline');
      }
      await durable.recordTravelRuleCompletion(id, { ...(travelRuleCompletion ?? {}) });
      await durable.setWithdrawalProgress(id, { status: 'IN_PROGRESS', stage: 'TRAVEL_RULE_CLEARED' });
      report({ status: 'IN_PROGRESS', stage: 'TRAVEL_RULE_CLEARED' });
    }
  } catch (error) {
    const cause = businessCause(error);
    return fail(cause instanceof ApplicationFailure ? cause.message : 'the travel-rule check failed');
  }

  try {
    const broadcast = await external.broadcastWithdrawal(id);
    if ('closed' in broadcast) {
      report({ status: broadcast.closed.status, stage: broadcast.closed.stage });
      return finish();
    }
    report({ status: 'IN_PROGRESS', stage: 'BROADCAST' });
    await polling.awaitWithdrawalConfirmation({ network: input.network, ...broadcast });
  } catch (error) {
    const cause = businessCause(error);
    if (cause instanceof ApplicationFailure && DEFINITE_FAILURE_TYPES.includes(cause.type ?? '')) return fail(cause.message);
    throw cause;
  }
  await durable.settleWithdrawal(id);
  report({ status: 'SUCCESSFUL', stage: 'SETTLED' });
  return finish();
}
