import type { OperationProgress, SepaTransferInput } from '../contracts';
import { answering, durable, durableLocal, external, patient, reserving } from './activity-proxies';
import { localFirst } from './local-first';
import { OperationTracker } from './operation-tracker';
import { runOutgoingPayment } from './outgoing-payment';

const settle = localFirst(durableLocal.settleSepaTransfer, durable.settleSepaTransfer);

/**
 * Reserve → pain.001 to the bank → settle on its acceptance, release on its rejection. Once the
 * payment is submitted only the bank's answer decides; waiting has no deadline, because the bank
 * may still execute a payment we stopped waiting for (see runOutgoingPayment).
 */
export async function sepaTransferWorkflow(input: SepaTransferInput): Promise<OperationProgress> {
  const id = input.transferId;
  const tracker = new OperationTracker(id);
  const open = await tracker.reserve(
    () => reserving.reserveSepaTransfer(input),
    () => durable.abandonSepaTransfer(id, 'the reservation could not be confirmed'),
  );
  if (!open) return tracker.finish();

  return runOutgoingPayment(tracker, {
    // Nothing to check before the pain.001 validation that marking the hand-off does.
    checks: () => Promise.resolve('PASSED'),
    // Validates the payment against pain.001 before recording the hand-off. A regular activity:
    // the first step after the reservation, so the caller's answer does not wait for it.
    markHandOff: () => durable.markSepaHandOff(id),
    release: (reason, stage) => durable.releaseSepaTransfer(id, reason, stage),
    async handOff() {
      const submitted = await external.submitSepaTransfer(id);
      return 'closed' in submitted ? submitted : { reference: submitted.bankReference };
    },
    handedOffStage: 'SUBMITTED',
    async askForAnswer(bankReference) {
      const answer = await answering.pollBankAnswer(bankReference);
      if (answer.state === 'PENDING') return 'PENDING';
      return answer.state === 'SETTLED' ? { state: 'SETTLED' } : { state: 'REJECTED', reason: answer.reason };
    },
    async awaitAnswerPatiently(bankReference) {
      const answer = await patient.awaitBankAnswer(bankReference);
      return answer.state === 'SETTLED' ? { state: 'SETTLED' } : { state: 'REJECTED', reason: answer.reason };
    },
    settle: () => settle(id),
    reject: (reason) => durable.rejectSepaTransfer(id, reason),
    recordCancellationRequest: () => durable.recordSepaCancellation(id),
  });
}
