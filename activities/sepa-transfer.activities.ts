import { ApplicationFailure } from '@temporalio/common';
import { LockMode } from '@mikro-orm/core';
import type { EntityManager } from '@mikro-orm/postgresql';
import { DomainError, assertInvariant } from '../core/errors';
import { isFinal } from '../core/operation-status';
import type { OperationState } from '../core/operation-status';
import { Decimal } from '../core/money';
import { LedgerTransfer } from '../db/entities/ledger-transfer.entity';
import { Partner } from '../db/entities/partner.entity';
import { SepaTransfer } from '../db/entities/sepa-transfer.entity';
import type { SepaTransferStage } from '../db/entities/sepa-transfer.entity';
import type { ReceiverType } from '../db/entities/crypto-withdrawal.entity';
import { postTransfer, reserveTransfer, voidTransfer } from '../db/ledger/ledger';
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

    /** After a reservation whose outcome is unknown: releases the hold if it was made after all. */
    async abandonSepaTransfer(transferId: string, reason: string): Promise<void> {
      await inTransaction(async (em) => {
        const transfer = await em.findOne(SepaTransfer, { id: transferId });
        if (!transfer || isFinal(transfer.status)) return;
        await voidTransfer(em, transferId, deps.clock.now());
        closeAs(transfer, 'UNSUCCESSFUL', 'REJECTED', deps.clock.now(), reason);
        await em.flush();
      });
    },

    /**
     * Builds the pain.001 message and hands it to the bank (idempotent on the transfer id), only
     * while the transfer is open and its funds still held.
     */
    async submitSepaTransfer(transferId: string): Promise<{ bankReference: string } | { closed: OperationState }> {
      const open = await inTransaction(async (em) => {
        const transfer = await em.findOne(SepaTransfer, { id: transferId }, { lockMode: LockMode.PESSIMISTIC_WRITE });
        assertInvariant(transfer, `SEPA transfer ${transferId} exists`);
        const hold = await em.findOne(LedgerTransfer, { id: transferId });
        if (isFinal(transfer.status) || hold?.state !== 'PENDING') {
          return { kind: 'closed' as const, state: { status: transfer.status, stage: transfer.stage } };
        }
        const partner = await em.findOne(Partner, { id: transfer.partnerId });
        const account = await findPartnerAccount(em, transfer.partnerId, 'eur');
        assertInvariant(partner && account?.iban, `partner ${transfer.partnerId} and its IBAN exist`);
        return { kind: 'open' as const, payment: sepaPaymentOf(transfer, partner.name, account.iban) };
      });
      if (open.kind === 'closed') return { closed: open.state };
      const { payment } = open;
      const { bankReference } = await deps.bank.submit(payment, buildPain001(payment));
      await inTransaction(async (tx) => {
        const stored = await load(tx, transferId);
        stored.messageId = payment.messageId;
        stored.bankReference = bankReference;
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

    /** Voids the reservation on the bank's rejection; the ledger refuses to void a posted one. */
    async releaseSepaTransfer(transferId: string, reason: string): Promise<void> {
      await inTransaction(async (em) => {
        const transfer = await load(em, transferId);
        if (transfer.status === 'UNSUCCESSFUL') return;
        const now = deps.clock.now();
        await voidTransfer(em, transferId, now);
        closeAs(transfer, 'UNSUCCESSFUL', 'REJECTED', now, reason);
        await em.flush();
      });
    },
  };
}

function sepaPaymentOf(transfer: SepaTransfer, debtorName: string, debtorIban: string): SepaPayment {
  const compactId = transfer.id.replace(/-/g, '');
  return {
    transferId: transfer.id,
    messageId: `MSG${compactId}`.slice(0, 35),
    endToEndId: compactId,
    amount: new Decimal(transfer.amount).toFixed(2),
    currency: 'EUR',
    debtor: { name: debtorName.slice(0, 70), iban: debtorIban },
    creditor: {
      name: (transfer.receiverType === 'LEGAL'
        ? (transfer.companyName ?? '')
        : `${transfer.receiverFirstName ?? ''} ${transfer.receiverLastName ?? ''}`
      ).trim(),
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
