import { randomUUID } from 'node:crypto';
import type { EntityManager } from '@mikro-orm/postgresql';
import type { Decimal } from '../../core/money';
import type { EurRates } from '../../core/rates';
import { ManualCredit } from '../../db/entities/manual-credit.entity';
import { creditsAloneLately } from '../../db/queries/single-operator-credit.queries';
import type { Operator } from '../../db/services/operator-audit.service';

/** When a credit by one operator needs a second: the two-person rule, for manual deposits and assigned incoming credits alike. */
export interface ApprovalPolicy {
  eurRates: EurRates;
  /** Undefined: every manual deposit posts at once. */
  approvalAboveEur: string | undefined;
}

/**
 * Why a credit of `amountEur` by this operator to this partner needs a second operator, or undefined: above the
 * threshold with what this operator credited alone in the last 24 hours, or with what this partner was credited so
 * (splitting a credit under the threshold does not pass it).
 */
export async function whyApprovalNeeded(
  em: EntityManager,
  operator: Operator,
  partnerId: string,
  amountEur: Decimal,
  policy: ApprovalPolicy,
  now: Date,
): Promise<string | undefined> {
  if (policy.approvalAboveEur === undefined) return undefined;
  const alone = await creditsAloneLately(em, operator.actor, partnerId, now);
  const byOperator = amountEur.plus(alone.byOperator);
  const toPartner = amountEur.plus(alone.toPartner);
  if (amountEur.gt(policy.approvalAboveEur)) return `worth ${amountEur.toFixed()} EUR, over ${policy.approvalAboveEur}`;
  if (byOperator.gt(policy.approvalAboveEur))
    return `with what ${operator.actor} credited alone in the last 24 hours, ${byOperator.toFixed()} EUR, over ${policy.approvalAboveEur}`;
  if (toPartner.gt(policy.approvalAboveEur))
    return `with what partner ${partnerId} was credited by one operator alone in the last 24 hours, ${toPartner.toFixed()} EUR, over ${policy.approvalAboveEur}`;
  return undefined;
}

/** A credit waiting for a second operator; `incomingEntryRef` when it assigns an unmatched incoming SEPA credit. */
export async function requestApproval(
  em: EntityManager,
  operator: Operator,
  input: { partnerId: string; currency: ManualCredit['currency']; amount: string; amountEur: string; type: ManualCredit['type'] },
  extra: { reason: string | null; incomingEntryRef: string | null },
  now: Date,
): Promise<ManualCredit> {
  const credit = em.create(ManualCredit, {
    id: randomUUID(),
    ...input,
    requestedBy: operator.actor,
    requestedOsUser: operator.osUser,
    reason: extra.reason,
    requestedAt: now,
    status: 'PENDING',
    approvedBy: null,
    approvedOsUser: null,
    approvedAt: null,
    transactionId: null,
    incomingEntryRef: extra.incomingEntryRef,
  });
  await em.flush();
  return credit;
}
