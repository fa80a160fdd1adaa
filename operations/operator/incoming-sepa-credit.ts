import type { EntityManager } from '@mikro-orm/postgresql';
import { DomainError } from '../../core/errors';
import type { IncomingSepaCredit } from '../../db/entities/incoming-sepa-credit.entity';
import { findPartnerAccount } from '../../db/ledger/accounts';
import { creditFromSuspense, lockIncomingCredit, markReturning } from '../../db/services/incoming-sepa-credit.service';
import { requirePartner } from '../../db/services/partner.service';
import { Decimal } from '../../core/money';
import { Account } from '../../db/entities/account.entity';
import type { ManualCredit } from '../../db/entities/manual-credit.entity';
import type { Operator } from '../../db/services/operator-audit.service';
import { OperatorActionRefused } from './operator-refusal';
import { requestApproval, whyApprovalNeeded } from './approval-policy';
import type { ApprovalPolicy } from './approval-policy';

/** Only an UNMATCHED credit can be decided; its row is locked, so of two operators deciding at once the second is refused. */
async function unmatchedCredit(em: EntityManager, entryRef: string): Promise<IncomingSepaCredit> {
  const credit = await lockIncomingCredit(em, { entryRef });
  if (!credit) throw new DomainError('not-found', `no incoming SEPA credit has the entry reference ${entryRef}`);
  if (credit.status !== 'UNMATCHED') {
    const what =
      credit.status === 'RETURNING'
        ? 'its return to the debtor is under way'
        : credit.status === 'RETURNED'
          ? 'it was returned to the debtor'
          : `it was credited to partner ${credit.partnerId ?? '?'}`;
    throw new OperatorActionRefused('already-resolved', `incoming credit ${entryRef} is ${credit.status}: ${what}; nothing was changed`);
  }
  return credit;
}

/** The partner's EUR account, which must be ACTIVE to be credited. */
async function requireActiveEurAccount(em: EntityManager, partnerId: string): Promise<void> {
  await requirePartner(em, partnerId);
  const account = await findPartnerAccount(em, partnerId, 'eur');
  if (!account) throw new DomainError('not-found', `partner ${partnerId} has no eur account`);
  if (account.fiatStatus !== 'ACTIVE') {
    throw new OperatorActionRefused(
      'account-not-active',
      `partner ${partnerId}'s EUR account is ${account.fiatStatus ?? 'without a status'}: activate it first (ops account set-status); nothing was changed`,
    );
  }
}

export type IncomingAssignment =
  | { kind: 'credited'; credit: IncomingSepaCredit; depositId: string }
  | { kind: 'pending'; credit: IncomingSepaCredit; pending: ManualCredit; why: string };

/**
 * Credits an UNMATCHED credit to a partner's ACTIVE EUR account, once: a sepaDeposit from suspense. Money is credited by
 * one operator only to the partner that owns the IBAN it came to, and within the two-person threshold (with what that
 * operator, or that partner, was credited alone lately); otherwise it waits for a second operator (`deposit approve`).
 */
export async function assignIncomingCredit(
  em: EntityManager,
  operator: Operator,
  input: { entryRef: string; partnerId: string; reason: string | null },
  policy: ApprovalPolicy,
  now: Date,
): Promise<IncomingAssignment> {
  const credit = await unmatchedCredit(em, input.entryRef);
  await requireActiveEurAccount(em, input.partnerId);
  const owner = await em.findOne(Account, { iban: credit.accountIban, kind: 'PARTNER' });
  const why =
    owner?.partnerId !== input.partnerId
      ? `the money came to ${credit.accountIban}, which is ${owner ? `partner ${owner.partnerId ?? '?'}'s` : "no partner's"}, not partner ${input.partnerId}'s`
      : await whyApprovalNeeded(em, operator, input.partnerId, new Decimal(credit.amount), policy, now);
  if (why === undefined) return { kind: 'credited', credit, depositId: await creditFromSuspense(em, credit, input.partnerId, now) };
  const pending = await requestApproval(
    em,
    operator,
    { partnerId: input.partnerId, currency: 'eur', amount: credit.amount, amountEur: credit.amount, type: 'sepaDeposit' },
    { reason: input.reason, incomingEntryRef: credit.entryRef },
    now,
  );
  return { kind: 'pending', credit, pending, why };
}

/** The approval of an assignment: still UNMATCHED, to a still ACTIVE account; returns the deposit's id. */
export async function creditIncomingToPartner(em: EntityManager, entryRef: string, partnerId: string, now: Date): Promise<string> {
  const credit = await unmatchedCredit(em, entryRef);
  await requireActiveEurAccount(em, partnerId);
  return creditFromSuspense(em, credit, partnerId, now);
}

/** Marks it RETURNING with the return payment's id; the incoming-sepa Schedule submits it (idempotent) and settles it. */
export async function returnIncomingCredit(
  em: EntityManager,
  entryRef: string,
  now: Date,
): Promise<{ credit: IncomingSepaCredit; returnId: string }> {
  const credit = await unmatchedCredit(em, entryRef);
  const returnId = await markReturning(em, credit, now);
  return { credit, returnId };
}
