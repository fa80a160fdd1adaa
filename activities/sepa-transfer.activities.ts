import { ApplicationFailure } from '@temporalio/common';
import type { EntityManager } from '@mikro-orm/postgresql';
import { DomainError, assertInvariant } from '../core/errors';
import { Decimal } from '../core/money';
import { Partner } from '../db/entities/partner.entity';
import { SepaTransfer } from '../db/entities/sepa-transfer.entity';
import type { ReceiverType } from '../db/entities/crypto-withdrawal.entity';
import { postTransfer, reserveTransfer, voidTransfer } from '../db/ledger/ledger';
import { findPartnerAccount, findSystemAccount } from '../db/ledger/system-accounts';
import { buildPain001 } from './adapters/bank/pain001';
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
    async reserveSepaTransfer(input: SepaTransferInput): Promise<{ transferId: string }> {
      return withBusinessFailures(() =>
        inTransaction(async (em) => {
          if (await em.findOne(SepaTransfer, { id: input.transferId })) return { transferId: input.transferId };
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
          return { transferId: input.transferId };
        }),
      );
    },

    /** Builds the pain.001 message and hands it to the bank (idempotent on the transfer id). */
    async submitSepaTransfer(transferId: string): Promise<{ bankReference: string }> {
      const em = deps.orm.em.fork();
      const transfer = await load(em, transferId);
      const partner = await em.findOne(Partner, { id: transfer.partnerId });
      const account = await findPartnerAccount(em, transfer.partnerId, 'eur');
      assertInvariant(partner && account?.iban, `partner ${transfer.partnerId} and its IBAN exist`);
      const compactId = transferId.replace(/-/g, '');
      const payment: SepaPayment = {
        transferId,
        messageId: `MSG${compactId}`.slice(0, 35),
        endToEndId: compactId,
        amount: new Decimal(transfer.amount).toFixed(2),
        currency: 'EUR',
        debtor: { name: partner.name.slice(0, 70), iban: account.iban },
        creditor: {
          name: (transfer.receiverType === 'LEGAL' ? (transfer.companyName ?? '') : `${transfer.receiverFirstName ?? ''} ${transfer.receiverLastName ?? ''}`).trim(),
          iban: transfer.destinationIban,
        },
        remittanceInformation: transfer.transferTitle,
        requestedExecutionDate: transfer.createdAt.toISOString().slice(0, 10),
        createdAt: transfer.createdAt.toISOString(),
      };
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
      const answer = await deps.bank.paymentState(bankReference);
      if (answer.state === 'PENDING') {
        throw ApplicationFailure.create({ type: 'bank-answer-pending', message: `no answer yet for ${bankReference}` });
      }
      return answer;
    },

    async settleSepaTransfer(transferId: string): Promise<void> {
      await inTransaction(async (em) => {
        const transfer = await load(em, transferId);
        const now = deps.clock.now();
        await postTransfer(em, transferId, now);
        transfer.status = 'SUCCESSFUL';
        transfer.stage = 'SETTLED';
        transfer.updatedAt = now;
        await em.flush();
      });
    },

    async releaseSepaTransfer(transferId: string, reason: string): Promise<void> {
      await inTransaction(async (em) => {
        const transfer = await load(em, transferId);
        const now = deps.clock.now();
        await voidTransfer(em, transferId, now);
        transfer.status = 'UNSUCCESSFUL';
        transfer.stage = 'REJECTED';
        transfer.failureReason = reason;
        transfer.updatedAt = now;
        await em.flush();
      });
    },
  };
}
