import { DomainError, assertInvariant } from '../core/errors';
import { isFinal } from '../core/operation-status';
import type { AbandonOutcome, OperationState, ReleaseOutcome } from '../core/operation-status';
import { Decimal } from '../core/money';
import { SEPA_NAME_MAX_LENGTH, sepaNaturalPersonName } from '../core/payment-limits';
import { SepaTransfer } from '../db/entities/sepa-transfer.entity';
import { findSepaTransferWithDebtor, recordSubmission } from '../db/queries/outgoing-payment.queries';
import { buildPain001 } from './adapters/bank/pain001';
import { UnknownBankReferenceError } from './adapters/bank/bank-adapter';
import type { BankPaymentState, SepaPayment } from './adapters/bank/bank-adapter';
import { reserve } from './reservation';
import type { Reservation } from '../db/queries/reservation.queries';
import { pollForAnswer } from './answer-polling';
import type { ActivityDependencies } from './dependencies';
import { activityFailure } from './domain-error.interceptor';
import { outgoingPaymentSteps } from './outgoing-payment.steps';

export function createSepaTransferActivities(deps: ActivityDependencies) {
  const payments = outgoingPaymentSteps(deps, {
    entity: SepaTransfer,
    table: 'sepa_transfer',
    ledgerKind: 'SEPA_TRANSFER',
    label: 'SEPA transfer',
    rejectedBy: 'bank',
    externalReference: (transfer) => transfer.bankReference,
    // The bank is asked again: its answer, not the calling workflow's, releases the money.
    rejectionEvidence: async (transfer) => {
      if (transfer.externalRejection) return transfer.externalRejection;
      if (!transfer.bankReference) return undefined;
      const answer = await bankAnswerOf(transfer.bankReference);
      return answer.state === 'REJECTED' ? answer.reason : undefined;
    },
  });

  /** The bank's state of a payment; a reference it does not know is no answer a retry can change. */
  const bankAnswerOf = async (bankReference: string): Promise<BankPaymentState> => {
    try {
      return await deps.bank.paymentState(bankReference);
    } catch (error) {
      if (error instanceof UnknownBankReferenceError) throw activityFailure('unknown-bank-reference', error.message);
      throw error;
    }
  };

  return {
    /** Needs an ACTIVE eur account (else partner-not-found, per DESIGN.md); holds the amount. */
    reserveSepaTransfer: (transferId: string): Promise<Reservation> => reserve(deps, 'sepa_transfer', transferId),

    /** After a reservation whose outcome is unknown: see outgoingPaymentSteps.abandon. */
    abandonSepaTransfer: (transferId: string, reason: string): Promise<AbandonOutcome> => payments.abandon(transferId, reason),

    /** Records the hand-off once the pain.001 message can carry the payment (else refused, nothing marked). */
    async markSepaHandOff(transferId: string): Promise<'MARKED' | { closed: OperationState }> {
      const found = await transferToHandOver(deps, transferId);
      // Closed or handed off already: the marking answers that, and a message is not built again.
      const open = !isFinal(found.transfer.status) && found.holdState === 'PENDING' && !payments.isHandedOff(found.transfer);
      if (open) paymentMessage(found.transfer, found.debtorName, found.debtorIban);
      return payments.markHandOff(transferId);
    },

    /** Hands the pain.001 message to the bank (idempotent on the transfer id), only while open with its funds held. */
    async submitSepaTransfer(transferId: string): Promise<{ bankReference: string } | { closed: OperationState }> {
      const found = await transferToHandOver(deps, transferId);
      const open = payments.handOverOf(found.transfer, found.holdState);
      if ('closed' in open) return open;
      const { payment, xml } = paymentMessage(open.record, found.debtorName, found.debtorIban);
      const { bankReference } = await deps.bank.submit(payment, xml);
      await recordSubmission(deps.pool, { id: transferId, messageId: payment.messageId, bankReference, now: deps.clock.now() });
      return { bankReference };
    },

    /** Polls the bank for one window (see pollForAnswer): its answer, or PENDING for the workflow to ask again later. */
    async pollBankAnswer(_transferId: string, bankReference: string): Promise<BankPaymentState> {
      const answer = await pollForAnswer(async () => {
        const state = await bankAnswerOf(bankReference);
        return state.state === 'PENDING' ? 'PENDING' : state;
      });
      return answer === 'PENDING' ? { state: 'PENDING' } : answer;
    },

    /**
     * Fails with a retryable "not yet" until the bank answers (the retry policy is the poll loop, adding nothing to the history).
     * For waits past the polling phase, and histories recorded before pollBankAnswer.
     */
    async awaitBankAnswer(_transferId: string, bankReference: string): Promise<Exclude<BankPaymentState, { state: 'PENDING' }>> {
      const answer = await bankAnswerOf(bankReference);
      if (answer.state === 'PENDING') throw activityFailure('bank-answer-pending', `no answer yet for ${bankReference}`);
      return answer;
    },

    /** On the bank's acceptance. */
    settleSepaTransfer: (transferId: string): Promise<void> => payments.settle(transferId),
    /** Before the submission only; HANDED_OFF (nothing released) once the bank has the payment. */
    releaseSepaTransfer: (transferId: string, reason: string, stage: 'FAILED' | 'CANCELLED' = 'FAILED'): Promise<ReleaseOutcome> =>
      payments.release(transferId, reason, stage),
    /** The bank's definite rejection. */
    rejectSepaTransfer: (transferId: string, reason: string): Promise<void> => payments.reject(transferId, reason),
    recordSepaCancellation: (transferId: string): Promise<void> => payments.recordCancellation(transferId),
  };
}

interface TransferToHandOver {
  transfer: SepaTransfer;
  holdState: string | null;
  debtorName: string | null;
  debtorIban: string | null;
}

async function transferToHandOver(deps: Pick<ActivityDependencies, 'orm' | 'pool'>, transferId: string): Promise<TransferToHandOver> {
  const found = await findSepaTransferWithDebtor(deps.pool, transferId);
  assertInvariant(found, `SEPA transfer ${transferId} exists`);
  return { ...found, transfer: deps.orm.em.fork().map(SepaTransfer, found.row as never) };
}

type PaymentMessage = { payment: SepaPayment; xml: string };

function paymentMessage(transfer: SepaTransfer, debtorName: string | null, debtorIban: string | null): PaymentMessage {
  assertInvariant(debtorName !== null && debtorIban, `partner ${transfer.partnerId} and its IBAN exist`);
  const payment = sepaPaymentOf(transfer, debtorName, debtorIban);
  try {
    return { payment, xml: buildPain001(payment) };
  } catch (error) {
    throw new DomainError('invalid-request', `the payment cannot be sent: ${error instanceof Error ? error.message : String(error)}`);
  }
}

function sepaPaymentOf(transfer: SepaTransfer, debtorName: string, debtorIban: string): SepaPayment {
  const compactId = transfer.id.replace(/-/g, '');
  return {
    transferId: transfer.id,
    messageId: `MSG${compactId}`.slice(0, 35),
    endToEndId: compactId,
    amount: new Decimal(transfer.amount).toFixed(2),
    currency: 'EUR',
    // Cut by characters, not UTF-16 units: half a surrogate pair is not XML.
    debtor: { name: Array.from(debtorName).slice(0, SEPA_NAME_MAX_LENGTH).join(''), iban: debtorIban },
    creditor: {
      // Built exactly as the API checked it (core/payment-limits.ts).
      name:
        transfer.receiverType === 'LEGAL'
          ? (transfer.companyName ?? '').trim()
          : sepaNaturalPersonName(transfer.receiverFirstName ?? '', transfer.receiverLastName ?? ''),
      iban: transfer.destinationIban,
    },
    remittanceInformation: transfer.transferTitle,
    requestedExecutionDate: transfer.createdAt.toISOString().slice(0, 10),
    createdAt: transfer.createdAt.toISOString(),
  };
}
