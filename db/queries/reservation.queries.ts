import type { EntityManager } from '@mikro-orm/postgresql';
import type { OperationState, OperationStatus } from '../../core/operation-status';
import type pg from 'pg';
import { assertInvariant } from '../../core/errors';
import type { FiatAccountStatus } from '../entities/account.entity';
import { ledgerError, ledgerPostings } from '../ledger/ledger';
import type { TransferInput } from '../ledger/ledger';

/** What a reservation that stored its record answers. */
export const RESERVED: OperationState = Object.freeze({ status: 'IN_PROGRESS', stage: 'RESERVED' });

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

/** What an outgoing payment's reservation writes, on either path: its hold and its record. */
export interface ReservationPlan {
  transfer: TransferInput;
  /** The record's columns by their names in the table (see storeReservedRecord). */
  record: Record<string, unknown>;
}

export interface OneStatementReservation extends ReservationPlan {
  now: Date;
  table: ReservedTable;
  operationId: string;
  /** The operation's workflow, and that workflow's input: the API's record must match both, and the transfer's kind. */
  workflowId: string;
  request: unknown;
}

/**
 * The usual reservation in one round trip: reserve_outgoing_payment
 * takes the operation's lock, checks the
 * accepted request, finds no earlier record and nothing in the partner's policy or EUR account to
 * decide, then holds the money and stores the record, all one transaction. Its state when a
 * record was there (EXISTS); DECIDE when it wrote nothing and the caller reserves step by step.
 * Insufficient funds and an abandoned operation are refused as reserveTransfer refuses them.
 */
export async function reserveOutgoingPayment(pool: pg.Pool, reservation: OneStatementReservation): Promise<OperationState | 'DECIDE'> {
  let rows: Array<{ outcome: 'RESERVED' | 'EXISTS' | 'DECIDE'; existing_status: OperationStatus | null; existing_stage: string | null }>;
  try {
    ({ rows } = await pool.query({
      name: 'reserve_outgoing_payment',
      text: `select outcome, existing_status, existing_stage
               from reserve_outgoing_payment($1, $2, $3, $4, $5::jsonb, $6::jsonb, $7::jsonb, $8)`,
      values: [
        reservation.table,
        reservation.operationId,
        reservation.transfer.kind,
        reservation.workflowId,
        JSON.stringify(reservation.request),
        ledgerPostings(reservation.transfer),
        JSON.stringify(reservation.record),
        reservation.now,
      ],
    }));
  } catch (error) {
    throw ledgerError(error);
  }
  const row = rows[0];
  assertInvariant(row, `reserve_outgoing_payment answered for ${reservation.operationId}`);
  if (row.outcome === 'RESERVED') return RESERVED;
  if (row.outcome === 'EXISTS' && row.existing_status) return { status: row.existing_status, stage: row.existing_stage ?? '' };
  return 'DECIDE';
}

/**
 * Stores a reserved operation's record (one row of its table) in the caller's transaction, after
 * its hold (reserveTransfer): its columns by their names in the table, one JSON parameter, each
 * value cast to its column's type by jsonb_populate_record, as reserve_outgoing_payment stores it.
 * Columns it does not name are null.
 */
export async function storeReservedRecord(em: EntityManager, table: ReservedTable, record: Record<string, unknown>): Promise<void> {
  await em.execute(`insert into ${table} select * from jsonb_populate_record(null::${table}, ?::jsonb)`, [JSON.stringify(record)]);
}

/** The partner's EUR account as committed now (a statement of its own: a fresh snapshot). */
async function eurAccountNow(em: EntityManager, partnerId: string): Promise<ReservationFacts['eurAccount']> {
  const [account] = await em.execute<{ id: string; fiat_status: FiatAccountStatus | null }[]>(
    `select id, fiat_status from account where kind = 'PARTNER' and partner_id = ? and currency = 'eur'`,
    [partnerId],
  );
  return account ? { id: account.id, fiatStatus: account.fiat_status ?? 'WAITING_TO_BE_ACTIVATED' } : null;
}
