import type { EntityManager } from '@mikro-orm/postgresql';
import type { OperationState, OperationStatus } from '../../core/operation-status';
import type { FiatAccountStatus } from '../entities/account.entity';

/** The outgoing payments a reservation stores (a closed list, never input). */
export type ReservedTable = 'crypto_withdrawal' | 'sepa_transfer';

/** What a reservation decides on, read once it holds the operation's lock (lockOperation). */
export interface ReservationFacts {
  /** The record a run before this one stored: the reservation is over, its state is the answer. */
  existing: OperationState | null;
  /**
   * The partner's daily limit, its policy row locked FOR UPDATE until the reservation's transaction
   * ends, so a partner's reservations take turns while it has a limit. Taken first, before the
   * ledger hold locks the partner's account row: a queue of reservations then waits here holding
   * nothing that the partner's deposits and exchanges need. Null when it has none: no lock then,
   * and assertWithinDailyLimit sums nothing.
   */
  limitEur: string | null;
  /** Whether the partner's policy requires an allowlisted destination (see assertAllowlisted). */
  allowlistRequired: boolean;
  /** The partner's EUR account, when asked for: null when it has none. */
  eurAccount: { id: string; fiatStatus: FiatAccountStatus } | null;
}

interface ReservationFactsRow {
  existing_status: OperationStatus | null;
  existing_stage: string | null;
  limit_eur: string | null;
  allowlist_required: boolean | null;
  eur_account_id: string | null;
  eur_fiat_status: FiatAccountStatus | null;
}

/**
 * In one statement, what a reservation used to read one after another: the record of an earlier
 * run, the partner's policy (its row locked FOR UPDATE only while it has a limit) and, for a SEPA
 * transfer, the partner's EUR account. Must run after the operation's lock is granted
 * (a statement of its own): its snapshot then sees what an earlier attempt committed. The sums
 * that the limit needs come later, each a statement of its own, after this lock.
 */
export async function lockReservationFacts(
  em: EntityManager,
  query: { table: ReservedTable; operationId: string; partnerId: string; withEurAccount: boolean },
): Promise<ReservationFacts> {
  // The statement's snapshot is taken before it may wait for the policy lock; after the wait only
  // the locked row is read again at its latest version. So the policy's allowlist flag comes from
  // the locked row when there is one, and the EUR account is read again after a lock (below): an
  // operator's change committed during the wait must decide this reservation, as it would have when
  // these were statements of their own after the lock.
  const [row] = await em.execute<ReservationFactsRow[]>(
    `select r.status as existing_status, r.stage as existing_stage, limited.limit_eur,
            coalesce(limited.allowlist_required, policy.allowlist_required) as allowlist_required,
            account.id as eur_account_id, account.fiat_status as eur_fiat_status
       from (values (1)) as one (n)
       left join ${query.table} r on r.id = ?
       left join partner_policy policy on policy.partner_id = ?
       left join lateral (select daily_limit_eur::text as limit_eur, allowlist_required from partner_policy
                           where partner_id = ? and daily_limit_eur is not null for update) limited on true
       left join account on ? and account.kind = 'PARTNER' and account.partner_id = ? and account.currency = 'eur'`,
    [query.operationId, query.partnerId, query.partnerId, query.withEurAccount, query.partnerId],
  );
  let eurAccount: ReservationFacts['eurAccount'] = row?.eur_account_id
    ? { id: row.eur_account_id, fiatStatus: row.eur_fiat_status ?? 'WAITING_TO_BE_ACTIVATED' }
    : null;
  if (query.withEurAccount && row?.limit_eur != null && !row.existing_status) eurAccount = await eurAccountNow(em, query.partnerId);
  return {
    existing: row?.existing_status ? { status: row.existing_status, stage: row.existing_stage ?? '' } : null,
    limitEur: row?.limit_eur ?? null,
    allowlistRequired: row?.allowlist_required === true,
    eurAccount,
  };
}

/** The partner's EUR account as committed now (a statement of its own: a fresh snapshot). */
async function eurAccountNow(em: EntityManager, partnerId: string): Promise<ReservationFacts['eurAccount']> {
  const [account] = await em.execute<{ id: string; fiat_status: FiatAccountStatus | null }[]>(
    `select id, fiat_status from account where kind = 'PARTNER' and partner_id = ? and currency = 'eur'`,
    [partnerId],
  );
  return account ? { id: account.id, fiatStatus: account.fiat_status ?? 'WAITING_TO_BE_ACTIVATED' } : null;
}
