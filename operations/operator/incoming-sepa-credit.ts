import type { EntityManager } from '@mikro-orm/postgresql';
import { DomainError } from '../../core/errors';
import type { IncomingSepaCredit } from '../../db/entities/incoming-sepa-credit.entity';
import { findPartnerAccount } from '../../db/ledger/accounts';
import { creditFromSuspense, lockIncomingCredit, markReturning } from '../../db/services/incoming-sepa-credit.service';
import { requirePartner } from '../../db/services/partner.service';
import { OperatorActionRefused } from './operator-refusal';

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

/** Credits an UNMATCHED credit to a partner's ACTIVE EUR account, once: a sepaDeposit from suspense. */
export async function assignIncomingCredit(
  em: EntityManager,
  input: { entryRef: string; partnerId: string },
  now: Date,
): Promise<{ credit: IncomingSepaCredit; depositId: string }> {
  const credit = await unmatchedCredit(em, input.entryRef);
  await requirePartner(em, input.partnerId);
  const account = await findPartnerAccount(em, input.partnerId, 'eur');
  if (!account) throw new DomainError('not-found', `partner ${input.partnerId} has no eur account`);
  if (account.fiatStatus !== 'ACTIVE') {
    throw new OperatorActionRefused(
      'account-not-active',
      `partner ${input.partnerId}'s EUR account is ${account.fiatStatus ?? 'without a status'}: activate it first (ops account set-status); nothing was changed`,
    );
  }
  const depositId = await creditFromSuspense(em, credit, input.partnerId, now);
  return { credit, depositId };
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
