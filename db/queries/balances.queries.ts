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

export interface NetworkConfigRow {
  currency: string;
  network: string;
  mainnet: boolean;
  fee_withdrawal: string;
  min_withdrawal: string;
  min_deposit: string;
}

export async function findNetworkConfigs(pool: pg.Pool): Promise<NetworkConfigRow[]> {
  const result = await pool.query<NetworkConfigRow>(
    `select currency, network, mainnet, fee_withdrawal::text, min_withdrawal::text, min_deposit::text
       from network_config order by currency, network`,
  );
  return result.rows;
}

export async function findNetworkConfig(pool: pg.Pool, currency: string, network: string): Promise<NetworkConfigRow | undefined> {
  const result = await pool.query<NetworkConfigRow>(
    `select currency, network, mainnet, fee_withdrawal::text, min_withdrawal::text, min_deposit::text
       from network_config where currency = $1 and network = $2`,
    [currency, network],
  );
  return result.rows[0];
}
