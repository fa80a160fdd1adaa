import type pg from 'pg';
import type { ChainMode } from '../../../../core/chain-parameters';
import type { UtxoNetwork } from '../../../../core/networks';

/** The chain network_config names for the network: the one its node must be on, and its addresses' format. */
export async function configuredChainMode(pool: pg.Pool, network: UtxoNetwork): Promise<ChainMode> {
  const { rows } = await pool.query<{ chain: ChainMode }>(`select chain from network_config where network = $1 limit 1`, [network]);
  if (!rows[0]) throw new Error(`network_config has no row for ${network}`);
  return rows[0].chain;
}

/** The node's own name for its chain (getblockchaininfo): Bitcoin Core says main/test/testnet4/signet/regtest; btcd mainnet/testnet3/regtest/simnet. */
export function chainModeOfNode(chain: unknown): ChainMode | undefined {
  if (chain === 'main' || chain === 'mainnet') return 'mainnet';
  if (chain === 'regtest' || chain === 'simnet') return 'regtest';
  if (typeof chain === 'string' && /^(test|testnet\d*|signet)$/.test(chain)) return 'testnet';
  return undefined;
}
