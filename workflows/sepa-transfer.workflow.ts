import type { OperationProgress, SepaTransferInput } from '../contracts';
import { answering, durable, durableLocal, external, patient, reserving, withSummary } from './activity-proxies';
import { localFirst } from './local-first';
import { OperationTracker } from './operation-tracker';
import { runOutgoingPayment } from './outgoing-payment';

/** Reserve → pain.001 to the bank → settle or release on its answer; no deadline once submitted (runOutgoingPayment). */
export async function sepaTransferWorkflow(input: SepaTransferInput): Promise<OperationProgress> {
  const id = input.transferId;
  const tracker = new OperationTracker({ earlyAnswer: id });
  // The steps' summaries in the Temporal UI (see withSummary) name what the reservation held.
  let amount = 'the amount';
  const open = await tracker.reserve(
    async () => {
      const reserved = await withSummary(reserving.reserveSepaTransfer, `reserve ${amount}`)(id);
      amount = `${reserved.amount} EUR`;
      return reserved;
    },
    () => withSummary(durable.abandonSepaTransfer, 'abandon the reservation')(id, 'the reservation could not be confirmed'),
  );
  if (!open) return tracker.finish();
  const settle = localFirst(
    withSummary(durableLocal.settleSepaTransfer, `settle: post ${amount}`),
    withSummary(durable.settleSepaTransfer, `settle: post ${amount}`),
  );

  return runOutgoingPayment(tracker, {
    // Nothing to check before the pain.001 validation that marking the hand-off does.
    checks: () => Promise.resolve('PASSED'),
    // A regular activity: the first step after the reservation, so the caller's answer does not wait for it.
    markHandOff: () => withSummary(durable.markSepaHandOff, 'validate the pain.001 and record the hand-off')(id),
    release: (reason, stage) => withSummary(durable.releaseSepaTransfer, `release ${amount}`)(id, reason, stage),
    async handOff() {
      const submitted = await withSummary(external.submitSepaTransfer, `submit the pain.001 (${amount}) to the bank`)(id);
      return 'closed' in submitted ? submitted : { reference: submitted.bankReference };
    },
    handedOffStage: 'SUBMITTED',
    async askForAnswer(bankReference) {
      const answer = await withSummary(answering.pollBankAnswer, 'ask the bank for its answer')(id, bankReference);
      if (answer.state === 'PENDING') return 'PENDING';
      return answer.state === 'SETTLED' ? { state: 'SETTLED' } : { state: 'REJECTED', reason: answer.reason };
    },
    async awaitAnswerPatiently(bankReference) {
      const answer = await withSummary(patient.awaitBankAnswer, 'await the bank answer')(id, bankReference);
      return answer.state === 'SETTLED' ? { state: 'SETTLED' } : { state: 'REJECTED', reason: answer.reason };
    },
    settle: () => settle(id),
    reject: (reason) => withSummary(durable.rejectSepaTransfer, `the bank rejected it: release ${amount}`)(id, reason),
    recordCancellationRequest: () => withSummary(durable.recordSepaCancellation, 'note the cancellation (too late to stop)')(id),
  });
}
