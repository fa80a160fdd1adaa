import { randomUUID } from 'node:crypto';
import { LockMode } from '@mikro-orm/core';
import type { EntityManager } from '@mikro-orm/postgresql';
import { assertInvariant } from '../../core/errors';
import { Decimal } from '../../core/money';
import { Account } from '../entities/account.entity';
import { IncomingSepaCredit } from '../entities/incoming-sepa-credit.entity';
import type { UnmatchedReason } from '../entities/incoming-sepa-credit.entity';
import { lockOperation, postTransferDirectly } from '../ledger/ledger';
import { postDeposit } from './deposit.service';

/** A booked credit as the bank notified it (the camt.054 parser's output, and the message it came in). */
export interface NotifiedSepaCredit {
  entryRef: string;
  accountIban: string;
  amount: string;
  bookingDate: string | null;
  valueDate: string | null;
  debtorName: string;
  debtorIban: string;
  remittance: string | null;
  messageId: string;
}

export type RecordOutcome =
  | { kind: 'CREDITED'; partnerId: string; depositId: string }
  | { kind: 'UNMATCHED'; reason: UnmatchedReason }
  /** Recorded before, with the same details: a notification delivered again. Nothing changed. */
  | { kind: 'DUPLICATE' }
  /** Recorded before with other details under the same entry reference: nothing changed, an operator must look. */
  | { kind: 'CONFLICT'; differs: string[] };

const COMPARED = ['accountIban', 'amount', 'debtorIban'] as const;

function differences(stored: IncomingSepaCredit, credit: NotifiedSepaCredit): string[] {
  return COMPARED.filter((field) => (field === 'amount' ? !new Decimal(stored.amount).eq(credit.amount) : stored[field] !== credit[field]));
}

/**
 * Records a notified credit once per entry reference (ingests of one entry serialised on it), moving its money in the same
 * transaction: to the partner whose ACTIVE EUR account has the IBAN, else into SEPA_SUSPENSE (UNMATCHED).
 */
export async function recordIncomingSepaCredit(em: EntityManager, credit: NotifiedSepaCredit, now: Date): Promise<RecordOutcome> {
  await lockOperation(em, `incoming-sepa-credit:${credit.entryRef}`);
  const stored = await em.findOne(IncomingSepaCredit, { entryRef: credit.entryRef });
  if (stored) {
    const differs = differences(stored, credit);
    return differs.length === 0 ? { kind: 'DUPLICATE' } : { kind: 'CONFLICT', differs };
  }
  const amount = new Decimal(credit.amount);
  assertInvariant(amount.gt(0) && amount.decimalPlaces() <= 2, `incoming credit ${credit.entryRef} has a positive amount in cents`);
  const account = await em.findOne(Account, { kind: 'PARTNER', currency: 'eur', iban: credit.accountIban });
  const received = {
    id: randomUUID(),
    entryRef: credit.entryRef,
    accountIban: credit.accountIban,
    amount: amount.toFixed(2),
    bookingDate: credit.bookingDate,
    valueDate: credit.valueDate,
    debtorName: credit.debtorName,
    debtorIban: credit.debtorIban,
    remittance: credit.remittance,
    messageId: credit.messageId,
    receivedAt: now,
    returnId: null,
    returnBankReference: null,
    returnRequestedAt: null,
    returnRejection: null,
  };
  if (account?.partnerId && account.fiatStatus === 'ACTIVE') {
    const deposit = await postDeposit(
      em,
      { partnerId: account.partnerId, currency: 'eur', amount: received.amount, type: 'sepaDeposit' },
      now,
    );
    em.create(IncomingSepaCredit, {
      ...received,
      status: 'CREDITED',
      unmatchedReason: null,
      partnerId: account.partnerId,
      depositId: deposit.id,
      suspenseTransferId: null,
      resolvedAt: now,
    });
    await em.flush();
    return { kind: 'CREDITED', partnerId: account.partnerId, depositId: deposit.id };
  }
  const reason: UnmatchedReason = account ? 'ACCOUNT_NOT_ACTIVE' : 'NO_ACCOUNT';
  const suspenseTransferId = randomUUID();
  await postTransferDirectly(
    em,
    {
      transferId: suspenseTransferId,
      kind: 'SEPA_UNMATCHED',
      postings: [
        { systemAccount: 'EXTERNAL_DEPOSITS', currency: 'eur', amount: amount.negated().toFixed(2) },
        { systemAccount: 'SEPA_SUSPENSE', currency: 'eur', amount: amount.toFixed(2) },
      ],
    },
    now,
  );
  em.create(IncomingSepaCredit, {
    ...received,
    status: 'UNMATCHED',
    unmatchedReason: reason,
    partnerId: null,
    depositId: null,
    suspenseTransferId,
    resolvedAt: null,
  });
  await em.flush();
  return { kind: 'UNMATCHED', reason };
}

/** The credit under an entry reference, its row locked to the caller's commit; null when there is none. */
export async function lockIncomingCredit(
  em: EntityManager,
  where: { entryRef: string } | { id: string },
): Promise<IncomingSepaCredit | null> {
  return em.findOne(IncomingSepaCredit, where, { lockMode: LockMode.PESSIMISTIC_WRITE });
}

/** An UNMATCHED credit to a partner's EUR account: a sepaDeposit out of suspense. */
export async function creditFromSuspense(em: EntityManager, credit: IncomingSepaCredit, partnerId: string, now: Date): Promise<string> {
  assertInvariant(credit.status === 'UNMATCHED', `incoming credit ${credit.entryRef} is UNMATCHED`);
  const deposit = await postDeposit(
    em,
    { partnerId, currency: 'eur', amount: credit.amount, type: 'sepaDeposit', source: 'SEPA_SUSPENSE' },
    now,
  );
  credit.status = 'ASSIGNED';
  credit.partnerId = partnerId;
  credit.depositId = deposit.id;
  credit.resolvedAt = now;
  await em.flush();
  return deposit.id;
}

/** An UNMATCHED credit to be sent back: its return payment gets its id now, the one every submission uses. */
export async function markReturning(em: EntityManager, credit: IncomingSepaCredit, now: Date): Promise<string> {
  assertInvariant(credit.status === 'UNMATCHED', `incoming credit ${credit.entryRef} is UNMATCHED`);
  credit.status = 'RETURNING';
  credit.returnId = randomUUID();
  credit.returnBankReference = null;
  credit.returnRequestedAt = now;
  await em.flush();
  return credit.returnId;
}

/** The bank has the return payment: its reference, kept for asking about it. */
export async function recordReturnSubmitted(em: EntityManager, credit: IncomingSepaCredit, bankReference: string): Promise<void> {
  assertInvariant(credit.status === 'RETURNING', `incoming credit ${credit.entryRef} is RETURNING`);
  credit.returnBankReference ??= bankReference;
  await em.flush();
}

/** The bank settled the return: the money leaves suspense for SEPA clearing, under the return's id. */
export async function completeReturn(em: EntityManager, credit: IncomingSepaCredit, now: Date): Promise<void> {
  assertInvariant(credit.status === 'RETURNING' && credit.returnId, `incoming credit ${credit.entryRef} is RETURNING`);
  await postTransferDirectly(
    em,
    {
      transferId: credit.returnId,
      kind: 'SEPA_RETURN',
      postings: [
        { systemAccount: 'SEPA_SUSPENSE', currency: 'eur', amount: new Decimal(credit.amount).negated().toFixed(2) },
        { systemAccount: 'SEPA_CLEARING', currency: 'eur', amount: new Decimal(credit.amount).toFixed(2) },
      ],
    },
    now,
  );
  credit.status = 'RETURNED';
  credit.resolvedAt = now;
  await em.flush();
}

/** The bank rejected the return: nothing left, the credit waits for an operator again, with the bank's reason. */
export async function reopenAfterRejectedReturn(em: EntityManager, credit: IncomingSepaCredit, reason: string): Promise<void> {
  assertInvariant(credit.status === 'RETURNING', `incoming credit ${credit.entryRef} is RETURNING`);
  credit.status = 'UNMATCHED';
  credit.returnId = null;
  credit.returnBankReference = null;
  credit.returnRequestedAt = null;
  credit.returnRejection = Array.from(reason.trim() || 'rejected by the bank')
    .slice(0, 500)
    .join('');
  await em.flush();
}
