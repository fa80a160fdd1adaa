import type { EntityManager } from '@mikro-orm/postgresql';
import type { ChainMode } from '../../core/chain-parameters';
import { CRYPTO_CURRENCIES } from '../../core/currencies';
import type { CryptoCurrency } from '../../core/currencies';
import { depositAddresses } from '../../core/deposit-addresses';
import type { DepositAccountKeys, DepositKeyFamily } from '../../core/deposit-addresses';
import { assertInvariant } from '../../core/errors';
import { NETWORK_DECLARATIONS, UTXO_NETWORKS, isEvmNetwork, networkOfKeyFamily } from '../../core/networks';
import { Account } from '../entities/account.entity';
import { NetworkConfig } from '../entities/network-config.entity';
import { Partner } from '../entities/partner.entity';

/** Per family, the chain its network is on (mainnet, testnet or regtest), as network_config says now. */
async function chainModeByFamily(em: EntityManager): Promise<(family: DepositKeyFamily) => ChainMode> {
  const rows = await em.find(NetworkConfig, { network: { $in: UTXO_NETWORKS } });
  return (family) => {
    // The family's network's chain decides a UTXO address's format; EVM addresses look the same on every chain.
    const network = networkOfKeyFamily(family);
    if (isEvmNetwork(network)) return 'mainnet';
    const currency = NETWORK_DECLARATIONS[network].nativeCurrency;
    const row = rows.find((config) => config.currency === currency && config.network === network);
    assertInvariant(row, `network_config has ${currency} on ${network}`);
    return row.chain;
  };
}

/** The deposit address of each crypto currency for the partner at `depositIndex`. */
export async function partnerDepositAddresses(
  em: EntityManager,
  keys: DepositAccountKeys,
  depositIndex: number,
): Promise<Record<CryptoCurrency, string>> {
  return depositAddresses(keys, depositIndex, await chainModeByFamily(em));
}

/** Partners are re-derived this many at a time, each page in its own flush. */
const REDERIVE_PAGE_SIZE = 500;

/**
 * Development only (never production, where a given address stays): gives every partner's crypto accounts the addresses
 * `keys` derive at its deposit index where they hold another. Idempotent; returns how many accounts changed.
 */
export async function rederiveDevelopmentDepositAddresses(em: EntityManager, keys: DepositAccountKeys): Promise<number> {
  const chainModeOf = await chainModeByFamily(em);
  let changed = 0;
  for (let after = -1; ;) {
    const partners = await em.find(
      Partner,
      { depositIndex: { $gt: after } },
      { orderBy: { depositIndex: 'asc' }, limit: REDERIVE_PAGE_SIZE, fields: ['id', 'depositIndex'] },
    );
    if (partners.length === 0) return changed;
    const accounts = await em.find(Account, {
      kind: 'PARTNER',
      partnerId: { $in: partners.map(({ id }) => id) },
      currency: { $in: [...CRYPTO_CURRENCIES] },
    });
    for (const partner of partners) {
      const expected = depositAddresses(keys, partner.depositIndex, chainModeOf);
      for (const account of accounts.filter(({ partnerId }) => partnerId === partner.id)) {
        const address = expected[account.currency as CryptoCurrency];
        if (account.walletAddress === address) continue;
        account.walletAddress = address;
        changed += 1;
      }
    }
    await em.flush();
    em.clear();
    after = partners[partners.length - 1]!.depositIndex;
  }
}
