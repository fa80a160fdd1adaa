import type pg from 'pg';

export interface HistoryRow {
  id: string;
  created_at: Date;
  type: string;
  /** Signed: debits negative, credits positive (numeric text). */
  amount: string;
  currency: string;
  amount_from: string | null;
  currency_from: string | null;
  status: string;
}

/**
 * One month of a partner's movements, newest first, from the operation tables themselves (the
 * ledger stays the source of truth for balances; these rows carry the partner-facing status).
 * A crypto withdrawal shows everything it debits: amount plus network fee.
 */
export async function findHistory(pool: pg.Pool, partnerId: string, from: Date, until: Date): Promise<HistoryRow[]> {
  const result = await pool.query<HistoryRow>(
    `select id, created_at, type, amount::text, currency, amount_from::text, currency_from, status from (
        select id, created_at, type, amount, currency,
               null::numeric as amount_from, null::text as currency_from, 'SUCCESSFUL' as status
          from deposit where partner_id = $1 and created_at >= $2 and created_at < $3
        union all
        select id, created_at, 'exchange', amount_to, currency_to, -amount_from, currency_from, status
          from exchange where partner_id = $1 and created_at >= $2 and created_at < $3
        union all
        select id, created_at, 'cryptoWithdrawal', -(amount + fee), currency, null, null, status
          from crypto_withdrawal where partner_id = $1 and created_at >= $2 and created_at < $3
        union all
        select id, created_at, 'sepaTransfer', -amount, currency, null, null, status
          from sepa_transfer where partner_id = $1 and created_at >= $2 and created_at < $3
     ) entries
     order by created_at desc, id desc
     limit 10000`,
    [partnerId, from, until],
  );
  return result.rows;
}
