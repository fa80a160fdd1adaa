import type pg from 'pg';

export interface UnbalancedTransferRow {
  transfer_id: string;
  currency: string;
  total: string;
}

/** Transfers whose postings do not sum to zero in some currency (the trigger should make this empty). */
export async function findUnbalancedTransfers(pool: pg.Pool): Promise<UnbalancedTransferRow[]> {
  const result = await pool.query<UnbalancedTransferRow>(
    `select transfer_id, currency, sum(amount)::text as total
       from ledger_posting group by transfer_id, currency having sum(amount) <> 0 limit 100`,
  );
  return result.rows;
}

export interface BalanceMismatchRow {
  account_id: string;
  posted_amount: string;
  posted_from_postings: string;
  pending_out_amount: string;
  pending_out_from_postings: string;
  pending_in_amount: string;
  pending_in_from_postings: string;
}

/** Partner accounts whose cached amounts differ from what their postings add up to (system accounts cache none). */
export async function findBalanceMismatches(pool: pg.Pool): Promise<BalanceMismatchRow[]> {
  const result = await pool.query<BalanceMismatchRow>(
    `with sums as (
       select p.account_id,
              coalesce(sum(p.amount) filter (where t.state = 'POSTED'), 0) as posted,
              coalesce(-sum(p.amount) filter (where t.state = 'PENDING' and p.amount < 0), 0) as pending_out,
              coalesce(sum(p.amount) filter (where t.state = 'PENDING' and p.amount > 0), 0) as pending_in
         from ledger_posting p join ledger_transfer t on t.id = p.transfer_id
        group by p.account_id)
     select a.id as account_id,
            a.posted_amount::text, coalesce(s.posted, 0)::text as posted_from_postings,
            a.pending_out_amount::text, coalesce(s.pending_out, 0)::text as pending_out_from_postings,
            a.pending_in_amount::text, coalesce(s.pending_in, 0)::text as pending_in_from_postings
       from account a left join sums s on s.account_id = a.id
      where a.kind = 'PARTNER'
        and (a.posted_amount <> coalesce(s.posted, 0)
          or a.pending_out_amount <> coalesce(s.pending_out, 0)
          or a.pending_in_amount <> coalesce(s.pending_in, 0))
      limit 100`,
  );
  return result.rows;
}

/** Partner accounts whose available balance is below zero (the CHECK should make this empty). */
export async function findOverdrawnAccounts(pool: pg.Pool): Promise<{ account_id: string; available: string }[]> {
  const result = await pool.query<{ account_id: string; available: string }>(
    `select id as account_id, (posted_amount - pending_out_amount)::text as available
       from account where kind = 'PARTNER' and posted_amount - pending_out_amount < 0 limit 100`,
  );
  return result.rows;
}

export interface StuckOperationRow {
  operation: string;
  id: string;
  status: string;
  created_at: Date;
}

/** Operations still in progress after `olderThan`: something upstream needs an operator. */
export async function findStuckOperations(pool: pg.Pool, olderThan: Date): Promise<StuckOperationRow[]> {
  const result = await pool.query<StuckOperationRow>(
    `select 'crypto-withdrawal' as operation, id, status, created_at from crypto_withdrawal
      where status in ('IN_PROGRESS', 'IN_PROGRESS_TR_DATA') and created_at < $1
     union all
     select 'sepa-transfer', id, status, created_at from sepa_transfer
      where status = 'IN_PROGRESS' and created_at < $1
     order by created_at limit 100`,
    [olderThan],
  );
  return result.rows;
}

/*
 * Business records against the ledger, sharing their ids: an open operation holds its funds (PENDING), a SUCCESSFUL one
 * posted them, an UNSUCCESSFUL one released them or never held any. A kept network fee, and a network fee the house paid
 * (for a withdrawal, or a sweep), is a SUCCESSFUL record of its own.
 */

const OPERATIONS = `(
  select 'crypto-withdrawal'::text as operation, id, status, stage, created_at, updated_at from crypto_withdrawal
  union all
  select 'sepa-transfer', id, status, stage, created_at, updated_at from sepa_transfer
  union all
  select 'exchange', id, status, null, created_at, created_at from exchange
  union all
  select 'crypto-withdrawal-kept-fee', id, 'SUCCESSFUL', null, created_at, created_at from crypto_withdrawal_kept_fee
  union all
  select 'crypto-withdrawal-network-fee', id, 'SUCCESSFUL', null, created_at, created_at from crypto_withdrawal_network_fee
  union all
  select 'utxo-sweep-network-fee', fee_transfer_id, 'SUCCESSFUL', null, created_at, finished_at from utxo_sweep
   where fee_transfer_id is not null
  union all
  select 'evm-sweep-network-fee', fee_transfer_id, 'SUCCESSFUL', null, created_at, finished_at from evm_sweep
   where fee_transfer_id is not null
)`;

export interface HeldTransferRow {
  transfer_id: string;
  /** Its workflow is `<operation>-<transfer_id>`. */
  operation: 'crypto-withdrawal' | 'sepa-transfer';
  status: string;
  stage: string;
  created_at: Date;
}

/** Holds of open operations made before `olderThan`, oldest first, at most `limit`, and how many there are in all. */
export async function findHeldTransfersOfOpenOperations(
  pool: pg.Pool,
  olderThan: Date,
  limit: number,
): Promise<{ rows: HeldTransferRow[]; total: number }> {
  const from = `from ledger_transfer t
      join (select 'crypto-withdrawal'::text as operation, id, status, stage from crypto_withdrawal
            union all select 'sepa-transfer', id, status, stage from sepa_transfer) o on o.id = t.id
     where t.state = 'PENDING' and t.created_at < $1 and o.status in ('IN_PROGRESS', 'IN_PROGRESS_TR_DATA')`;
  const [rows, total] = await Promise.all([
    pool.query<HeldTransferRow>(
      `select t.id as transfer_id, o.operation, o.status, o.stage, t.created_at ${from} order by t.created_at, t.id limit $2`,
      [olderThan, limit],
    ),
    pool.query<{ count: string }>(`select count(*)::text as count ${from}`, [olderThan]),
  ]);
  return { rows: rows.rows, total: Number(total.rows[0]?.count ?? 0) };
}

export interface OperationTransferMismatchRow {
  operation: string;
  id: string;
  status: string;
  stage: string | null;
  /** null when the operation has no ledger transfer at all. */
  transfer_state: string | null;
  updated_at: Date;
}

/** UNSUCCESSFUL operations whose funds are still held or were posted (none held at all is fine). */
export async function findUnsuccessfulNotVoided(pool: pg.Pool): Promise<OperationTransferMismatchRow[]> {
  const result = await pool.query<OperationTransferMismatchRow>(
    `select o.operation, o.id, o.status, o.stage, t.state as transfer_state, o.updated_at
       from ${OPERATIONS} o join ledger_transfer t on t.id = o.id
      where o.status = 'UNSUCCESSFUL' and t.state <> 'VOIDED'
      order by o.updated_at limit 100`,
  );
  return result.rows;
}

/** SUCCESSFUL operations whose transfer is not posted (or missing). */
export async function findSuccessfulNotPosted(pool: pg.Pool): Promise<OperationTransferMismatchRow[]> {
  const result = await pool.query<OperationTransferMismatchRow>(
    `select o.operation, o.id, o.status, o.stage, t.state as transfer_state, o.updated_at
       from ${OPERATIONS} o left join ledger_transfer t on t.id = o.id
      where o.status = 'SUCCESSFUL' and t.state is distinct from 'POSTED'
      order by o.updated_at limit 100`,
  );
  return result.rows;
}

/** Open operations (made before `olderThan`) whose funds are not held: posted, voided or missing. */
export async function findOpenWithoutHold(pool: pg.Pool, olderThan: Date): Promise<OperationTransferMismatchRow[]> {
  const result = await pool.query<OperationTransferMismatchRow>(
    `select o.operation, o.id, o.status, o.stage, t.state as transfer_state, o.updated_at
       from ${OPERATIONS} o left join ledger_transfer t on t.id = o.id
      where o.status in ('IN_PROGRESS', 'IN_PROGRESS_TR_DATA') and o.created_at < $1 and t.state is distinct from 'PENDING'
      order by o.created_at limit 100`,
    [olderThan],
  );
  return result.rows;
}

export interface HoldWithoutOpenOperationRow {
  transfer_id: string;
  kind: string;
  created_at: Date;
  /** The operation's status, or null when no operation has this id. */
  operation: string | null;
  status: string | null;
}

/** Holds (PENDING transfers) that no open operation explains: its operation is final, or missing. */
export async function findHoldsWithoutOpenOperation(pool: pg.Pool): Promise<HoldWithoutOpenOperationRow[]> {
  const result = await pool.query<HoldWithoutOpenOperationRow>(
    `select t.id as transfer_id, t.kind, t.created_at, o.operation, o.status
       from ledger_transfer t left join ${OPERATIONS} o on o.id = t.id
      where t.state = 'PENDING' and (o.status is null or o.status not in ('IN_PROGRESS', 'IN_PROGRESS_TR_DATA'))
      order by t.created_at limit 100`,
  );
  return result.rows;
}

export interface TransferWithoutRecordRow {
  transfer_id: string;
  kind: string;
  state: string;
}

/**
 * A transfer that moved money (POSTED) without the business record its kind is written with, in the same transaction:
 * money minted or moved by a direct call of a ledger function (anyone with EXECUTE on it) rather than by an operation, a
 * credit or a fee of ours. A hold without its operation is findHoldsWithoutOpenOperation's; a VOIDED tombstone has none.
 */
export async function findTransfersWithoutRecord(pool: pg.Pool): Promise<TransferWithoutRecordRow[]> {
  const result = await pool.query<TransferWithoutRecordRow>(
    `select t.id as transfer_id, t.kind, t.state
       from ledger_transfer t
      where t.state = 'POSTED' and not case t.kind
        when 'DEPOSIT' then exists (select 1 from deposit r where r.id = t.id)
                         or exists (select 1 from crypto_deposit r where r.id = t.id)
        when 'EXCHANGE' then exists (select 1 from exchange r where r.id = t.id)
        when 'CRYPTO_WITHDRAWAL' then exists (select 1 from crypto_withdrawal r where r.id = t.id)
        when 'SEPA_TRANSFER' then exists (select 1 from sepa_transfer r where r.id = t.id)
        when 'CRYPTO_WITHDRAWAL_FEE' then exists (select 1 from crypto_withdrawal_kept_fee r where r.id = t.id)
        when 'SEPA_UNMATCHED' then exists (select 1 from incoming_sepa_credit r where r.suspense_transfer_id = t.id)
        when 'SEPA_RETURN' then exists (select 1 from incoming_sepa_credit r where r.return_id = t.id)
        when 'NETWORK_FEE' then exists (select 1 from crypto_withdrawal_network_fee r where r.id = t.id)
                             or exists (select 1 from utxo_sweep r where r.fee_transfer_id = t.id)
                             or exists (select 1 from evm_sweep r where r.fee_transfer_id = t.id)
        else false end
      limit 100`,
  );
  return result.rows;
}
