import { LockMode } from '@mikro-orm/core';
import type { EntityManager } from '@mikro-orm/postgresql';
import { DomainError } from '../../core/errors';
import { Decimal } from '../../core/money';
import type { Deposit } from '../../db/entities/deposit.entity';
import { ManualCredit } from '../../db/entities/manual-credit.entity';
import { checkDeposit, postDeposit } from '../../db/services/deposit.service';
import type { NewDeposit } from '../../db/services/deposit.service';
import { OperatorActionRefused } from './operator-refusal';
import { requestApproval, whyApprovalNeeded } from './approval-policy';
import type { ApprovalPolicy } from './approval-policy';
import type { Operator } from '../../db/services/operator-audit.service';
import { creditIncomingToPartner } from './incoming-sepa-credit';

export type { ApprovalPolicy } from './approval-policy';

export type ManualDepositOutcome =
  { kind: 'posted'; deposit: Deposit; amountEur: string } | { kind: 'pending'; credit: ManualCredit; amountEur: string; why: string };

/** The EUR value at the configured rate, rounded up at 18 decimals, so the threshold is never met by rounding. */
export function eurValueOf(amount: Decimal, rate: string): string {
  return amount.times(rate).toDecimalPlaces(18, Decimal.ROUND_UP).toFixed();
}

/** Posted at once up to MANUAL_CREDIT_APPROVAL_ABOVE_EUR (whyApprovalNeeded); above it, a pending credit until a second operator approves it. */
export async function depositByOperator(
  em: EntityManager,
  operator: Operator,
  input: Omit<NewDeposit, 'id'> & { reason: string | null },
  policy: ApprovalPolicy,
  now: Date,
): Promise<ManualDepositOutcome> {
  const { amount } = await checkDeposit(em, input);
  const amountEur = eurValueOf(amount, policy.eurRates[input.currency]);
  const why = await whyApprovalNeeded(em, operator, input.partnerId, new Decimal(amountEur), policy, now);
  if (why === undefined) {
    const deposit = await postDeposit(em, input, now);
    return { kind: 'posted', deposit, amountEur };
  }
  const credit = await requestApproval(
    em,
    operator,
    { partnerId: input.partnerId, currency: input.currency, amount: amount.toFixed(), amountEur, type: input.type },
    { reason: input.reason, incomingEntryRef: null },
    now,
  );
  return { kind: 'pending', credit, amountEur, why };
}

/** Posts a pending credit once (locked row; the deposit takes its id), for an operator other than its requester. */
export async function approveManualCredit(
  em: EntityManager,
  operator: Operator,
  creditId: string,
  now: Date,
  osUsers: 'distinct' | 'shared',
): Promise<{ credit: ManualCredit; transactionId: string }> {
  const credit = await em.findOne(ManualCredit, { id: creditId }, { lockMode: LockMode.PESSIMISTIC_WRITE, refresh: true });
  if (!credit) throw new DomainError('not-found', `no pending manual credit has the id ${creditId}`);
  if (credit.status !== 'PENDING') {
    throw new OperatorActionRefused(
      'already-approved',
      `manual credit ${creditId} was already approved by ${credit.approvedBy ?? '?'} at ${credit.approvedAt?.toISOString() ?? '?'}: it posted deposit ${credit.transactionId ?? '?'}`,
    );
  }
  if (sameOperator(credit.requestedBy, operator.actor)) {
    throw new OperatorActionRefused(
      'self-approval',
      `manual credit ${creditId} was requested by ${credit.requestedBy}: another operator must approve it (--operator NAME)`,
    );
  }
  // A name is only what was typed: where every operator has a login of their own, the login decides.
  if (osUsers === 'distinct' && credit.requestedOsUser === operator.osUser) {
    throw new OperatorActionRefused(
      'self-approval',
      `manual credit ${creditId} was requested from the OS account ${credit.requestedOsUser}: another operator must approve it from their own account (MANUAL_CREDIT_APPROVAL_OS_USERS=shared where operators share one)`,
    );
  }
  // An assignment credits the incoming money out of suspense (still unassigned, to an ACTIVE account); else it is minted.
  const incomingEntryRef = credit.incomingEntryRef ?? null;
  const transactionId =
    incomingEntryRef === null
      ? (
          await postDeposit(
            em,
            { id: credit.id, partnerId: credit.partnerId, currency: credit.currency, amount: credit.amount, type: credit.type },
            now,
          )
        ).id
      : await creditIncomingToPartner(em, incomingEntryRef, credit.partnerId, now);
  credit.status = 'APPROVED';
  credit.approvedBy = operator.actor;
  credit.approvedOsUser = operator.osUser;
  credit.approvedAt = now;
  credit.transactionId = transactionId;
  await em.flush();
  return { credit, transactionId };
}

/** Names compared as the database compares them (manual_credit_guard): case does not make another person. */
function sameOperator(a: string, b: string): boolean {
  return a.trim().toLowerCase() === b.trim().toLowerCase();
}
