import type pg from 'pg';

export interface PartnerAccountRow {
  id: string;
  currency: string;
  /** posted − pending out, as numeric text. */
  available_amount: string;
  iban: string | null;
  fiat_status: string | null;
  wallet_address: string | null;
}

export async function findPartnerAccounts(pool: pg.Pool, partnerId: string): Promise<PartnerAccountRow[]> {
  const result = await pool.query<PartnerAccountRow>(
    `select id, currency, (posted_amount - pending_out_amount)::text as available_amount,
            iban, fiat_status, wallet_address
       from account
      where kind = 'PARTNER' and partner_id = $1
      order by currency`,
    [partnerId],
  );
  return result.rows;
}
