import type pg from 'pg';

export interface NetworkConfigRow {
  currency: string;
  network: string;
  mainnet: boolean;
  fee_withdrawal: string;
  min_withdrawal: string;
  min_deposit: string;
}

/** Every network's config, amounts as numeric text without trailing zeros ("0.00005", "2"). */
export async function findNetworkConfigs(pool: pg.Pool): Promise<NetworkConfigRow[]> {
  const result = await pool.query<NetworkConfigRow>(
    `select currency, network, mainnet, trim_scale(fee_withdrawal)::text as fee_withdrawal,
            trim_scale(min_withdrawal)::text as min_withdrawal, trim_scale(min_deposit)::text as min_deposit
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

/** Per pool: a test's stack and a process's own are never mixed up. Bounded by the currencies and networks (validated enums). */
const cachedConfigs = new WeakMap<pg.Pool, Map<string, Promise<NetworkConfigRow | undefined>>>();

/** findNetworkConfig read once per process (network_config changes only by migration); a miss or failure is asked again. */
export function findNetworkConfigCached(pool: pg.Pool, currency: string, network: string): Promise<NetworkConfigRow | undefined> {
  let configs = cachedConfigs.get(pool);
  if (!configs) cachedConfigs.set(pool, (configs = new Map<string, Promise<NetworkConfigRow | undefined>>()));
  const key = `${currency}/${network}`;
  const cached = configs.get(key);
  if (cached) return cached;
  const reading = findNetworkConfig(pool, currency, network);
  configs.set(key, reading);
  const forget = () => void configs.delete(key);
  reading.then((row) => (row ? undefined : forget()), forget);
  return reading;
}
