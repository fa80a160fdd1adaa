import type { CryptoWithdrawalInput, OperationProgress } from '../contracts';
import { answering, durable, durableLocal, external, patient, reserving, withSummary } from './activity-proxies';
import { localFirst } from './local-first';
import { OperationTracker } from './operation-tracker';
import { runOutgoingPayment } from './outgoing-payment';
import type { CheckOutcome } from './outgoing-payment';
import { TravelRuleInbox } from './travel-rule-inbox';

const MARK_HAND_OFF = 'record the hand-off: from here on the coins may leave';
const markHandOff = localFirst(
  withSummary(durableLocal.markWithdrawalHandOff, MARK_HAND_OFF),
  withSummary(durable.markWithdrawalHandOff, MARK_HAND_OFF),
);

/**
 * Reserve amount + fee → travel-rule check (deny list; above the EUR threshold to a non-custodial or other wallet, a
 * validated completion before a deadline) → broadcast → confirmation → settle; the lifecycle is runOutgoingPayment's.
 */
export async function cryptoWithdrawalWorkflow(input: CryptoWithdrawalInput): Promise<OperationProgress> {
  const id = input.withdrawalId;
  const currency = input.currency.toUpperCase();
  const network = input.network;
  const tracker = new OperationTracker({ earlyAnswer: id });
  const travelRule = new TravelRuleInbox(id, () => tracker.current.status);

  // The steps' summaries in the Temporal UI (see withSummary) name what the reservation held.
  let amount = `the ${currency} amount`;
  const open = await tracker.reserve(
    async () => {
      const reserved = await withSummary(reserving.reserveWithdrawal, `reserve ${amount} + fee`)(id);
      amount = `${reserved.amount} ${currency}`;
      return reserved;
    },
    () => withSummary(durable.abandonWithdrawal, 'abandon the reservation')(id, 'the reservation could not be confirmed'),
  );
  if (!open) return tracker.finish();
  const settle = localFirst(
    withSummary(durableLocal.settleWithdrawal, `settle: post ${amount} + fee`),
    withSummary(durable.settleWithdrawal, `settle: post ${amount} + fee`),
  );

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
    release: (reason, stage) => withSummary(durable.releaseWithdrawal, `release ${amount} + fee`)(id, reason, stage),
    async handOff() {
      const broadcast = await withSummary(external.broadcastWithdrawal, `broadcast ${amount} on ${network}`)(id);
      return 'closed' in broadcast ? broadcast : { reference: broadcast };
    },
    handedOffStage: 'BROADCAST',
    async askForAnswer(broadcast) {
      const state = await withSummary(answering.pollWithdrawalConfirmation, `ask ${network} for the confirmation`)(id, {
        network,
        ...broadcast,
      });
      return state === 'CONFIRMED' ? { state: 'SETTLED' } : 'PENDING';
    },
    async awaitAnswerPatiently(broadcast) {
      await withSummary(patient.awaitWithdrawalConfirmation, `await the confirmation on ${network}`)(id, { network, ...broadcast });
      return { state: 'SETTLED' };
    },
    settle: () => settle(id),
    reject: (reason) => withSummary(durable.rejectWithdrawal, `rejected on ${network}: release ${amount} + fee`)(id, reason),
    recordCancellationRequest: () => withSummary(durable.recordWithdrawalCancellation, 'note the cancellation (too late to stop)')(id),
  });

  /** The deny list, and above the EUR threshold to a non-custodial wallet, the completed data. */
  async function checkTravelRule(): Promise<CheckOutcome> {
    // A regular activity: the first step after the reservation, so the caller's answer does not wait for it.
    const outcome = await withSummary(durable.checkTravelRule, 'travel-rule check: deny list, EUR threshold')(id);
    if (outcome.handedOff) return 'HANDED_OFF';
    if (outcome.deniedReason) return { failed: outcome.deniedReason };
    if (!outcome.requiresCompletion) return 'PASSED';
    const setProgress = withSummary(durable.setWithdrawalProgress, 'record the travel-rule stage');
    await setProgress(id, { status: 'IN_PROGRESS_TR_DATA', stage: 'AWAITING_TRAVEL_RULE_DATA' });
    const deadline = new Date(Date.now() + outcome.deadlineMs).toISOString();
    tracker.report(
      { status: 'IN_PROGRESS_TR_DATA', stage: 'AWAITING_TRAVEL_RULE_DATA' },
      `Waits for travel-rule data (the completeTravelRule update) until ${deadline}.`,
    );
    // One deadline however many completions the database refuses.
    const deadlineAt = Date.now() + outcome.deadlineMs;
    for (;;) {
      const completion = await travelRule.await(deadlineAt - Date.now());
      if (!completion) return { failed: 'travel-rule data was not completed before the deadline' };
      const recording = await withSummary(durable.recordTravelRuleCompletion, 'record the travel-rule completion')(id, completion);
      // Older histories answered nothing here: recorded.
      if (!recording?.refused) break;
      travelRule.refused(recording.refused);
    }
    await setProgress(id, { status: 'IN_PROGRESS', stage: 'TRAVEL_RULE_CLEARED' });
    tracker.report({ status: 'IN_PROGRESS', stage: 'TRAVEL_RULE_CLEARED' });
    travelRule.recorded();
    return 'PASSED';
  }
}
