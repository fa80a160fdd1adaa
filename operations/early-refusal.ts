import type pg from 'pg';
import { DomainError } from '../core/errors';
import { rateLockProblem, refusedForFundsAlone } from '../db/queries/early-refusal.queries';

/**
 * Refusals an operation's workflow would end in, read before anything is recorded (WorkflowStart.refuseEarly): a flood
 * of exchanges on made-up locks, or of payments without the funds, costs a read each instead of a workflow each. In the
 * words and the order the database functions use, so the partner hears the same refusal either way.
 */

/** P433 when the partner's available balance is below what the payment would hold, and nothing else is refused first. */
export async function refuseWithoutFunds(pool: pg.Pool, payment: Parameters<typeof refusedForFundsAlone>[1]): Promise<void> {
  if (await refusedForFundsAlone(pool, payment)) throw new DomainError('insufficient-funds', `not enough ${payment.currency} available`);
}

/** P432 when the lock is not the partner's, used, or expired at the request's time. */
export async function refuseUnusableLock(pool: pg.Pool, partnerId: string, lockId: string, requestedAt: Date): Promise<void> {
  const problem = await rateLockProblem(pool, partnerId, lockId, requestedAt);
  if (problem !== undefined) throw new DomainError('invalid-exchange-lock', problem);
}
