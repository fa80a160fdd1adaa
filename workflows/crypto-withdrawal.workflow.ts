import type { CryptoWithdrawalInput, OperationProgress } from '../contracts';
import { answering, durable, durableLocal, external, patient, reserving } from './activity-proxies';
import { localFirst } from './local-first';
import { OperationTracker } from './operation-tracker';
import { runOutgoingPayment } from './outgoing-payment';
import type { CheckOutcome } from './outgoing-payment';
import { TravelRuleInbox } from './travel-rule-inbox';

const markHandOff = localFirst(durableLocal.markWithdrawalHandOff, durable.markWithdrawalHandOff);
const settle = localFirst(durableLocal.settleWithdrawal, durable.settleWithdrawal);

/**
 * Reserve amount + fee → travel-rule check (deny list; above the EUR threshold to a
 * non-custodial or other wallet, wait for a validated completion until a deadline) → broadcast →
 * confirmation → settle. The lifecycle around these steps (what releases, what a cancellation
 * does) is the one every outgoing payment shares: see runOutgoingPayment.
 */
export async function cryptoWithdrawalWorkflow(input: CryptoWithdrawalInput): Promise<OperationProgress> {
  const id = input.withdrawalId;
  const tracker = new OperationTracker(id);
  const travelRule = new TravelRuleInbox(id, () => tracker.current.status);

  const open = await tracker.reserve(
    () => reserving.reserveWithdrawal(input),
    () => durable.abandonWithdrawal(id, 'the reservation could not be confirmed'),
  );
  if (!open) return tracker.finish();

  return runOutgoingPayment(tracker, {
    async checks() {
      // Closed whatever happens, so a caller of the travel-rule Update always gets an answer.
      try {
        return await checkTravelRule();
      } finally {
        travelRule.close();
      }
    },
    markHandOff: () => markHandOff(id),
    release: (reason, stage) => durable.releaseWithdrawal(id, reason, stage),
    async handOff() {
      const broadcast = await external.broadcastWithdrawal(id);
      return 'closed' in broadcast ? broadcast : { reference: broadcast };
    },
    handedOffStage: 'BROADCAST',
    async askForAnswer(broadcast) {
      const state = await answering.pollWithdrawalConfirmation({ network: input.network, ...broadcast });
      return state === 'CONFIRMED' ? { state: 'SETTLED' } : 'PENDING';
    },
    async awaitAnswerPatiently(broadcast) {
      await patient.awaitWithdrawalConfirmation({ network: input.network, ...broadcast });
      return { state: 'SETTLED' };
    },
    settle: () => settle(id),
    reject: (reason) => durable.rejectWithdrawal(id, reason),
    recordCancellationRequest: () => durable.recordWithdrawalCancellation(id),
  });

  /** The deny list, and above the EUR threshold to a non-custodial wallet, the completed data. */
  async function checkTravelRule(): Promise<CheckOutcome> {
    // A regular activity: the first step after the reservation, so the caller's answer does not wait for it.
    const outcome = await durable.checkTravelRule(id);
    if (outcome.handedOff) return 'HANDED_OFF';
    if (outcome.deniedReason) return { failed: outcome.deniedReason };
    if (!outcome.requiresCompletion) return 'PASSED';
    await durable.setWithdrawalProgress(id, { status: 'IN_PROGRESS_TR_DATA', stage: 'AWAITING_TRAVEL_RULE_DATA' });
    tracker.report({ status: 'IN_PROGRESS_TR_DATA', stage: 'AWAITING_TRAVEL_RULE_DATA' });
    const completion = await travelRule.await(outcome.deadlineMs);
    if (!completion) return { failed: 'travel-rule data was not completed before the deadline' };
    await durable.recordTravelRuleCompletion(id, completion);
    await durable.setWithdrawalProgress(id, { status: 'IN_PROGRESS', stage: 'TRAVEL_RULE_CLEARED' });
    tracker.report({ status: 'IN_PROGRESS', stage: 'TRAVEL_RULE_CLEARED' });
    travelRule.recorded();
    return 'PASSED';
  }
}
