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

/** Accounts whose cached amounts differ from what their postings add up to. */
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
      where a.posted_amount <> coalesce(s.posted, 0)
         or a.pending_out_amount <> coalesce(s.pending_out, 0)
         or a.pending_in_amount <> coalesce(s.pending_in, 0)
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
