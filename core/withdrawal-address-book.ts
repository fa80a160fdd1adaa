import { isBech32 } from './address-format';
import type { Network } from './currencies';

/**
 * The partner's withdrawal-address book: the addresses a withdrawal may go to when the partner's
 * policy requires it (`ops partner set-policy --allowlist required`), each usable only once its
 * cooling-off is over. Pure: the API, the reservation's check and the tests share it.
 */

export const WITHDRAWAL_ADDRESS_BOOK_LIMITS = {
  /** Entries not deleted, per partner: the book is a short list of trusted destinations, read whole. */
  entriesPerPartner: 100,
  labelMaxLength: 100,
} as const;

/** What an entry is to withdrawals: PENDING during its cooling-off, then ACTIVE. */
export type WithdrawalAddressStatus = 'PENDING' | 'ACTIVE';
export const WITHDRAWAL_ADDRESS_STATUSES = ['PENDING', 'ACTIVE'] as const satisfies readonly WithdrawalAddressStatus[];

/** Computed when read, never stored: an entry becomes ACTIVE by the passing of time alone. */
export function withdrawalAddressStatus(activeFrom: Date, now: Date): WithdrawalAddressStatus {
  return activeFrom.getTime() <= now.getTime() ? 'ACTIVE' : 'PENDING';
}

/**
 * How a network's addresses compare. EVM addresses are hex: their letter case is only the EIP-55
 * checksum. Bech32 addresses (bc1…, ltc1…) are one address in either case. Base58 addresses
 * (1…, 3…, L…, D…) are case-sensitive: two spellings are two addresses.
 */
const ADDRESS_CASE: Readonly<Record<Network, 'hex' | 'bech32-or-base58'>> = {
  ethereum: 'hex',
  polygon: 'hex',
  bitcoin: 'bech32-or-base58',
  litecoin: 'bech32-or-base58',
  dogecoin: 'bech32-or-base58',
};

/**
 * The form in which two spellings of one address are equal: what the book's entries and a
 * withdrawal's destination are matched by. Anything that is not bech32 on a UTXO network
 * compares exactly, the stricter choice.
 */
export function addressMatchingKey(network: Network, address: string): string {
  if (ADDRESS_CASE[network] === 'hex') return address.toLowerCase();
  return isBech32(address) ? address.toLowerCase() : address;
}
