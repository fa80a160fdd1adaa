import type pg from 'pg';
import { canonicalDepositAddress } from '../../core/deposit-addresses';
import type { DepositKeyFamily } from '../../core/deposit-addresses';
import { NETWORK_DECLARATIONS, networkOfKeyFamily } from '../../core/networks';

export interface DepositAddressOwner {
  /** As stored: EIP-55 for EVM, lower case for bech32. */
  address: string;
  partnerId: string;
  depositIndex: number;
}

/** At most this many addresses per lookup (a block batch's candidates): the caller pages beyond. */
export const MAX_DEPOSIT_ADDRESS_LOOKUP = 10_000;

/** The currency whose account stands for the family: eth, usdc and pol accounts of a partner hold one address. */
const familyCurrency = (family: DepositKeyFamily): string => NETWORK_DECLARATIONS[networkOfKeyFamily(family)].nativeCurrency;

/**
 * Which of these addresses are partners' deposit addresses of the family, and whose: one index probe per address, in
 * their stored form (an EVM log's lower-case hex finds its checksummed address); text that is no address is no one's.
 */
export async function findDepositAddressOwners(
  pool: pg.Pool | pg.PoolClient,
  family: DepositKeyFamily,
  addresses: readonly string[],
): Promise<DepositAddressOwner[]> {
  if (addresses.length > MAX_DEPOSIT_ADDRESS_LOOKUP) {
    throw new RangeError(`at most ${MAX_DEPOSIT_ADDRESS_LOOKUP} addresses per lookup, got ${addresses.length}`);
  }
  const canonical = [...new Set(addresses.flatMap((address) => canonicalDepositAddress(family, address) ?? []))];
  if (canonical.length === 0) return [];
  const result = await pool.query<{ address: string; partner_id: string; deposit_index: number }>({
    name: 'deposit-address-owners',
    text: `select a.wallet_address as address, a.partner_id, p.deposit_index
             from account a join partner p on p.id = a.partner_id
            where a.currency = $1 and a.kind = 'PARTNER' and a.wallet_address = any($2::text[])`,
    values: [familyCurrency(family), canonical],
  });
  return result.rows.map((row) => ({ address: row.address, partnerId: row.partner_id, depositIndex: row.deposit_index }));
}
