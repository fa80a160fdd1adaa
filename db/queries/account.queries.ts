import type pg from 'pg';
import { CURRENCY_SCALE } from '../../core/currencies';

export interface PartnerAccountRow {
  id: string;
  currency: string;
  /** posted − pending out, as numeric text at the currency's scale, rounded down ("1234.50"). */
  available_amount: string;
  iban: string | null;
  fiat_status: string | null;
  wallet_address: string | null;
}

/** Each currency's scale, written into the statement from the one table of scales (constants only). */
const SCALE_OF_CURRENCY = `case currency ${Object.entries(CURRENCY_SCALE)
  .map(([currency, scale]) => `when '${currency}' then ${scale}`)
  .join(' ')} end`;

/** trunc rounds toward zero, as the API always has (balances are never negative). */
const PARTNER_ACCOUNTS_SQL = `
select partner_id, id, currency, trunc(posted_amount - pending_out_amount, ${SCALE_OF_CURRENCY})::text as available_amount,
       iban, fiat_status, wallet_address
  from account
 where kind = 'PARTNER' and partner_id = any($1::uuid[])
 order by partner_id, currency`;

/** The accounts of each of these partners, by currency, in one prepared statement. */
export async function findAccountsOfPartners(
  pool: pg.Pool,
  partnerIds: readonly string[],
): Promise<ReadonlyMap<string, PartnerAccountRow[]>> {
  const result = await pool.query<PartnerAccountRow & { partner_id: string }>({
    name: 'accounts-of-partners',
    text: PARTNER_ACCOUNTS_SQL,
    values: [partnerIds],
  });
  const accounts = new Map<string, PartnerAccountRow[]>(partnerIds.map((partnerId) => [partnerId, []]));
  for (const row of result.rows) accounts.get(row.partner_id)?.push(row);
  return accounts;
}
