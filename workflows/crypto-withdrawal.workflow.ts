import { ApplicationFailure, condition, proxyActivities, setHandler } from '@temporalio/workflow';
import type { Activities } from '../activities';
import type { CryptoWithdrawalInput } from '../activities/crypto-withdrawal.activities';
import { BOUNDED_DATABASE_STEP, DEFINITE_FAILURE_TYPES, DURABLE_DATABASE_STEP, EXTERNAL_CALL, POLL_UNTIL_FINAL } from './activity-options';
import { businessCause } from './business-cause';
import { travelRuleDataCompletedSignal } from './definitions';
import type { OperationProgress, TravelRuleCompletion } from './definitions';
import { OperationTracker } from './operation-tracker';

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
  const tracker = new OperationTracker(id);
  let travelRuleCompletion: TravelRuleCompletion | undefined;
  setHandler(travelRuleDataCompletedSignal, (completion) => {
    travelRuleCompletion = completion ?? {};
  });
  const fail = async (reason: string): Promise<OperationProgress> => {
    await durable.releaseWithdrawal(id, reason);
    tracker.report({ status: 'UNSUCCESSFUL', stage: 'FAILED', failureReason: reason });
    return tracker.finish();
  };

  const open = await tracker.reserve(
    () => reserving.reserveWithdrawal(input),
    () => durable.abandonWithdrawal(id, 'the reservation could not be confirmed'),
  );
  if (!open) return tracker.finish();

  try {
    const travelRule = await durable.checkTravelRule(id);
    if (travelRule.deniedReason) return fail(travelRule.deniedReason);
    if (travelRule.requiresCompletion) {
      await durable.setWithdrawalProgress(id, { status: 'IN_PROGRESS_TR_DATA', stage: 'AWAITING_TRAVEL_RULE_DATA' });
      tracker.report({ status: 'IN_PROGRESS_TR_DATA', stage: 'AWAITING_TRAVEL_RULE_DATA' });
      if (!(await condition(() => travelRuleCompletion !== undefined, travelRule.deadlineMs))) {
        return fail('travel-rule data was not completed before the deadline');
      }
      await durable.recordTravelRuleCompletion(id, { ...(travelRuleCompletion ?? {}) });
      await durable.setWithdrawalProgress(id, { status: 'IN_PROGRESS', stage: 'TRAVEL_RULE_CLEARED' });
      tracker.report({ status: 'IN_PROGRESS', stage: 'TRAVEL_RULE_CLEARED' });
    }
  } catch (error) {
    const cause = businessCause(error);
    return fail(cause instanceof ApplicationFailure ? cause.message : 'the travel-rule check failed');
  }

  try {
    const broadcast = await external.broadcastWithdrawal(id);
    if ('closed' in broadcast) {
      tracker.report({ status: broadcast.closed.status, stage: broadcast.closed.stage });
      return tracker.finish();
    }
    tracker.report({ status: 'IN_PROGRESS', stage: 'BROADCAST' });
    await polling.awaitWithdrawalConfirmation({ network: input.network, ...broadcast });
  } catch (error) {
    const cause = businessCause(error);
    if (cause instanceof ApplicationFailure && DEFINITE_FAILURE_TYPES.includes(cause.type ?? '')) return fail(cause.message);
    throw cause;
  }
  await durable.settleWithdrawal(id);
  tracker.report({ status: 'SUCCESSFUL', stage: 'SETTLED' });
  return tracker.finish();
}
