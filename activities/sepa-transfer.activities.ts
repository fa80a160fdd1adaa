import { ApplicationFailure } from '@temporalio/common';
import { LockMode } from '@mikro-orm/core';
import type { EntityManager } from '@mikro-orm/postgresql';
import { DomainError, assertInvariant } from '../core/errors';
import { isFinal } from '../core/operation-status';
import type { AbandonOutcome, OperationState, ReleaseOutcome } from '../core/operation-status';
import { Decimal } from '../core/money';
import { SEPA_NAME_MAX_LENGTH, sepaNaturalPersonName } from '../core/payment-limits';
import { LedgerTransfer } from '../db/entities/ledger-transfer.entity';
import { Partner } from '../db/entities/partner.entity';
import { SepaTransfer } from '../db/entities/sepa-transfer.entity';
import type { SepaTransferStage } from '../db/entities/sepa-transfer.entity';
import type { ReceiverType } from '../db/entities/crypto-withdrawal.entity';
import { lockOperation, postTransfer, reserveTransfer, tombstoneTransfer, voidTransfer } from '../db/ledger/ledger';
import { findPartnerAccount, findSystemAccount } from '../db/ledger/system-accounts';
import { buildPain001 } from './adapters/bank/pain001';
import { UnknownBankReferenceError } from './adapters/bank/bank-adapter';
import type { BankPaymentState, SepaPayment } from './adapters/bank/bank-adapter';
import { withBusinessFailures } from './business-failure';
import type { ActivityDependencies } from './dependencies';

export interface SepaTransferInput {
  transferId: string;
  partnerId: string;
  amount: string;
  receiverType: ReceiverType;
  receiverFirstName: string | null;
  receiverLastName: string | null;
  companyName: string | null;
  destinationIban: string;
  transferTitle: string;
}

export function createSepaTransferActivities(deps: ActivityDependencies) {
  const inTransaction = <T>(work: (em: EntityManager) => Promise<T>) => deps.orm.em.fork().transactional(work);
  const load = async (em: EntityManager, transferId: string) => {
    const transfer = await em.findOne(SepaTransfer, { id: transferId });
    assertInvariant(transfer, `SEPA transfer ${transferId} exists`);
    return transfer;
  };

  return {
    /** Needs an ACTIVE eur account (else partner-not-found, per DESIGN.md); holds the amount. */
    async reserveSepaTransfer(input: SepaTransferInput): Promise<OperationState> {
      return withBusinessFailures(() =>
        inTransaction(async (em) => {
          await lockOperation(em, input.transferId);
          const existing = await em.findOne(SepaTransfer, { id: input.transferId });
          if (existing) return { status: existing.status, stage: existing.stage };
          const now = deps.clock.now();
          const account = await findPartnerAccount(em, input.partnerId, 'eur');
          if (!account || account.fiatStatus !== 'ACTIVE') {
            throw new DomainError('partner-not-found', 'the partner has no active EUR account');
          }
          const clearing = await findSystemAccount(em, 'SEPA_CLEARING', 'eur');
          await reserveTransfer(
            em,
            {
              transferId: input.transferId,
              kind: 'SEPA_TRANSFER',
              postings: [
                { accountId: account.id, amount: new Decimal(input.amount).negated().toFixed() },
                { accountId: clearing.id, amount: input.amount },
              ],
            },
            now,
          );
          em.create(SepaTransfer, {
            ...input,
            id: input.transferId,
            currency: 'eur',
            status: 'IN_PROGRESS',
            stage: 'RESERVED',
            messageId: null,
            bankReference: null,
            failureReason: null,
            createdAt: now,
            updatedAt: now,
          });
          await em.flush();
          return { status: 'IN_PROGRESS', stage: 'RESERVED' };
        }),
      );
    },

    /**
     * After a reservation whose outcome is unknown: leaves a tombstone so a late attempt can
     * never commit, or releases the hold if the reservation committed first.
     */
    async abandonSepaTransfer(transferId: string, reason: string): Promise<AbandonOutcome> {
      return inTransaction(async (em) => {
        if ((await tombstoneTransfer(em, transferId, 'SEPA_TRANSFER')) === 'TOMBSTONED') return 'NOTHING_MOVED';
        const transfer = await em.findOne(SepaTransfer, { id: transferId }, { lockMode: LockMode.PESSIMISTIC_WRITE });
        assertInvariant(transfer, `SEPA transfer ${transferId} exists beside its transfer`);
        if (transfer.status === 'UNSUCCESSFUL') return 'NOTHING_MOVED';
        if (transfer.status === 'SUCCESSFUL' || isHandedOff(transfer)) return 'HANDED_OFF';
        await voidTransfer(em, transferId, deps.clock.now());
        closeAs(transfer, 'UNSUCCESSFUL', 'FAILED', deps.clock.now(), reason);
        await em.flush();
        return 'NOTHING_MOVED';
      });
    },

    /**
     * Builds the pain.001 message and hands it to the bank (idempotent on the transfer id), only
     * while the transfer is open and its funds still held. A payment the message cannot carry is
     * refused (non-retryable) before the hand-off is recorded, so the workflow releases the funds.
     */
    async submitSepaTransfer(transferId: string): Promise<{ bankReference: string } | { closed: OperationState }> {
      const open = await withBusinessFailures(() =>
        inTransaction(async (em) => {
          const transfer = await em.findOne(SepaTransfer, { id: transferId }, { lockMode: LockMode.PESSIMISTIC_WRITE });
          assertInvariant(transfer, `SEPA transfer ${transferId} exists`);
          const hold = await em.findOne(LedgerTransfer, { id: transferId });
          if (isFinal(transfer.status) || hold?.state !== 'PENDING') {
            return { kind: 'closed' as const, state: { status: transfer.status, stage: transfer.stage } };
          }
          const partner = await em.findOne(Partner, { id: transfer.partnerId });
          const account = await findPartnerAccount(em, transfer.partnerId, 'eur');
          assertInvariant(partner && account?.iban, `partner ${transfer.partnerId} and its IBAN exist`);
          const payment = sepaPaymentOf(transfer, partner.name, account.iban);
          let xml: string;
          try {
            xml = buildPain001(payment);
          } catch (error) {
            throw new DomainError('invalid-request', `the payment cannot be sent: ${error instanceof Error ? error.message : String(error)}`);
          }
          // Committed before the bank is called: from here on only the bank's answer may release.
          transfer.handedOffAt ??= deps.clock.now();
          transfer.updatedAt = deps.clock.now();
          await em.flush();
          return { kind: 'open' as const, payment, xml };
        }),
      );
      if (open.kind === 'closed') return { closed: open.state };
      const { payment, xml } = open;
      const { bankReference } = await deps.bank.submit(payment, xml);
      await inTransaction(async (tx) => {
        const stored = await tx.findOne(SepaTransfer, { id: transferId }, { lockMode: LockMode.PESSIMISTIC_WRITE });
        assertInvariant(stored, `SEPA transfer ${transferId} exists`);
        stored.messageId = payment.messageId;
        stored.bankReference ??= bankReference;
        if (stored.stage === 'RESERVED') stored.stage = 'SUBMITTED';
        stored.updatedAt = deps.clock.now();
        await tx.flush();
      });
      return { bankReference };
    },

    /** Fails with a retryable "not yet" while the bank has not answered. */
    async awaitBankAnswer(bankReference: string): Promise<Exclude<BankPaymentState, { state: 'PENDING' }>> {
      let answer: BankPaymentState;
      try {
        answer = await deps.bank.paymentState(bankReference);
      } catch (error) {
        if (error instanceof UnknownBankReferenceError) {
          throw ApplicationFailure.create({ type: 'unknown-bank-reference', message: error.message, nonRetryable: true });
        }
        throw error;
      }
      if (answer.state === 'PENDING') {
        throw ApplicationFailure.create({ type: 'bank-answer-pending', message: `no answer yet for ${bankReference}` });
      }
      return answer;
    },

    /** Posts the reservation on the bank's acceptance; the ledger refuses to post a voided one. */
    async settleSepaTransfer(transferId: string): Promise<void> {
      await inTransaction(async (em) => {
        const transfer = await load(em, transferId);
        if (transfer.status === 'SUCCESSFUL') return;
        const now = deps.clock.now();
        await postTransfer(em, transferId, now);
        closeAs(transfer, 'SUCCESSFUL', 'SETTLED', now, null);
        await em.flush();
      });
    },

    /**
     * Before the hand-off: voids the reservation and marks the transfer UNSUCCESSFUL. Once handed
     * to the bank it releases nothing and says so (the database refuses too).
     */
    async releaseSepaTransfer(transferId: string, reason: string, stage: 'FAILED' | 'CANCELLED' = 'FAILED'): Promise<ReleaseOutcome> {
      return inTransaction(async (em) => {
        const transfer = await em.findOne(SepaTransfer, { id: transferId }, { lockMode: LockMode.PESSIMISTIC_WRITE });
        assertInvariant(transfer, `SEPA transfer ${transferId} exists`);
        if (transfer.status === 'UNSUCCESSFUL') return 'RELEASED';
        if (transfer.status === 'SUCCESSFUL' || isHandedOff(transfer)) return 'HANDED_OFF';
        const now = deps.clock.now();
        await voidTransfer(em, transferId, now);
        closeAs(transfer, 'UNSUCCESSFUL', stage, now, reason);
        await em.flush();
        return 'RELEASED';
      });
    },

    /** The bank's definite rejection: records it, then releases (the ledger refuses a posted one). */
    async rejectSepaTransfer(transferId: string, reason: string): Promise<void> {
      await inTransaction(async (em) => {
        const transfer = await em.findOne(SepaTransfer, { id: transferId }, { lockMode: LockMode.PESSIMISTIC_WRITE });
        assertInvariant(transfer, `SEPA transfer ${transferId} exists`);
        if (transfer.status === 'UNSUCCESSFUL') return;
        const now = deps.clock.now();
        transfer.externalRejection = reason;
        // Flushed first: the database lets the void through only once the rejection is stored.
        await em.flush();
        await voidTransfer(em, transferId, now);
        closeAs(transfer, 'UNSUCCESSFUL', 'REJECTED', now, reason);
        await em.flush();
      });
    },

    /** An operator asked to cancel after the submission: noted; the money waits for the bank. */
    async recordSepaCancellation(transferId: string): Promise<void> {
      await inTransaction(async (em) => {
        const transfer = await load(em, transferId);
        transfer.cancelRequestedAt ??= deps.clock.now();
        await em.flush();
      });
    },
  };
}

function isHandedOff(transfer: SepaTransfer): boolean {
  return Boolean(transfer.handedOffAt || transfer.bankReference);
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

function closeAs(
  transfer: SepaTransfer,
  status: 'SUCCESSFUL' | 'UNSUCCESSFUL',
  stage: SepaTransferStage,
  now: Date,
  failureReason: string | null,
): void {
  transfer.status = status;
  transfer.stage = stage;
  transfer.failureReason = failureReason;
  transfer.updatedAt = now;
}
