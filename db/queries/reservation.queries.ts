import type { EntityManager } from '@mikro-orm/postgresql';
import type { OperationState, OperationStatus } from '../../core/operation-status';
import type { FiatAccountStatus } from '../entities/account.entity';
import { assertInvariant } from '../../core/errors';
import { assertOpened, ledgerError, ledgerOpenCall } from '../ledger/ledger';
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

type FactsQuery = { table: ReservedTable; operationId: string; partnerId: string; withEurAccount: boolean };

/**
 * In one statement, what a reservation used to read one after another: the record of an earlier
 * run, the partner's policy (its row locked FOR UPDATE only while it has a limit) and, for a SEPA
 * transfer, the partner's EUR account. Must run after the operation's lock is granted
 * (a statement of its own): its snapshot then sees what an earlier attempt committed. The sums
 * that the limit needs come later, each a statement of its own, after this lock.
 */
export async function lockReservationFacts(em: EntityManager, query: FactsQuery): Promise<ReservationFacts> {
  const [row] = await em.execute<ReservationFactsRow[]>(factsSelect(query.table), factsValues(query));
  return factsOf(em, query, row);
}

/** A reservation's hold and record, as stored when nothing else decides. */
export interface PlainReservation {
  transfer: TransferInput;
  /** The record's columns by their names in the table (see reservedRecordInsert). */
  record: Record<string, unknown>;
  now: Date;
}

export interface ReservationAttempt extends ReservationFacts {
  /** True when this statement held the money and stored the record: the reservation is done. */
  reserved: boolean;
}

/**
 * lockReservationFacts, and in the same statement, when the facts leave nothing to decide (no
 * earlier record, no daily limit, no address book required, for a SEPA transfer an active EUR
 * account), the hold (ledger_open) and the record: one round trip where the usual reservation
 * took three, and one transaction as before. When the facts do decide something, the statement
 * writes nothing (ledger_open is not called) and answers the facts, and the caller goes on as
 * lockReservationFacts's caller would, the same locks held. Insufficient funds and an abandoned
 * operation fail the statement as they fail reserveTransfer (ledgerError).
 */
export async function reserveUnlessDecided(em: EntityManager, query: FactsQuery, plain: PlainReservation): Promise<ReservationAttempt> {
  const hold = ledgerOpenCall(plain.transfer, 'PENDING', plain.now);
  const insert = reservedRecordInsert(query.table, plain.record, 'held');
  const sql = `with facts as (${factsSelect(query.table)}),
       held as (select ${hold.sql} as outcome from facts
                 where existing_status is null and limit_eur is null and allowlist_required is not true
                   and (not ? or eur_fiat_status = 'ACTIVE')),
       stored as (${insert.sql} returning 1)
       select facts.*, held.outcome from facts left join held on true`;
  let row: (ReservationFactsRow & { outcome: unknown }) | undefined;
  try {
    [row] = await em.execute<(ReservationFactsRow & { outcome: unknown })[]>(sql, [
      ...factsValues(query),
      ...hold.values,
      query.withEurAccount,
      ...insert.values,
    ]);
  } catch (error) {
    throw ledgerError(error);
  }
  const reserved = row?.outcome != null;
  if (reserved) assertOpened(row?.outcome, plain.transfer.transferId);
  return { ...(await factsOf(em, query, row)), reserved };
}

/**
 * Stores a reserved operation's record (one row of its table) from its columns, named as in the
 * table: jsonb_populate_record casts each value to its column's type, so the record's values are
 * one JSON parameter. With `gate`, the row is stored only when that CTE of the statement has a row.
 */
export function reservedRecordInsert(
  table: ReservedTable,
  record: Record<string, unknown>,
  gate?: string,
): { sql: string; values: unknown[] } {
  const columns = Object.keys(record);
  // Names from this codebase's own record builders, never input: checked all the same, as they are spliced.
  assertInvariant(columns.length > 0 && columns.every((column) => /^[a-z_]{1,63}$/.test(column)), `the columns of a ${table} record`);
  const list = columns.join(', ');
  return {
    sql: `insert into ${table} (${list}) select ${list} from jsonb_populate_record(null::${table}, ?::jsonb)${gate ? `, ${gate}` : ''}`,
    values: [JSON.stringify(record)],
  };
}

/** A reservation's record stored in the caller's transaction (after its hold: reserveTransfer). */
export async function storeReservedRecord(em: EntityManager, table: ReservedTable, record: Record<string, unknown>): Promise<void> {
  const insert = reservedRecordInsert(table, record);
  await em.execute(insert.sql, insert.values);
}

/** The facts statement. Its values: factsValues. */
function factsSelect(table: ReservedTable): string {
  // The statement's snapshot is taken before it may wait for the policy lock; after the wait only
  // the locked row is read again at its latest version. So the policy's allowlist flag comes from
  // the locked row when there is one, and the EUR account is read again after a lock (factsOf): an
  // operator's change committed during the wait must decide this reservation, as it would have when
  // these were statements of their own after the lock.
  return `select r.status as existing_status, r.stage as existing_stage, limited.limit_eur,
            coalesce(limited.allowlist_required, policy.allowlist_required) as allowlist_required,
            account.id as eur_account_id, account.fiat_status as eur_fiat_status
       from (values (1)) as one (n)
       left join ${table} r on r.id = ?
       left join partner_policy policy on policy.partner_id = ?
       left join lateral (select daily_limit_eur::text as limit_eur, allowlist_required from partner_policy
                           where partner_id = ? and daily_limit_eur is not null for update) limited on true
       left join account on ? and account.kind = 'PARTNER' and account.partner_id = ? and account.currency = 'eur'`;
}

function factsValues(query: FactsQuery): unknown[] {
  return [query.operationId, query.partnerId, query.partnerId, query.withEurAccount, query.partnerId];
}

async function factsOf(em: EntityManager, query: FactsQuery, row: ReservationFactsRow | undefined): Promise<ReservationFacts> {
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
