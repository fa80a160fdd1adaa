import { isBech32 } from './address-format';
import type { Network } from './networks';

// The destinations a partner's policy may require (`--allowlist required`), each usable after its cooling-off. Pure.

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

/** Case is only EIP-55's checksum in hex, and means nothing in bech32; base58 is case-sensitive. */
const ADDRESS_CASE: Readonly<Record<Network, 'hex' | 'bech32-or-base58'>> = {
  ethereum: 'hex',
  polygon: 'hex',
  bitcoin: 'bech32-or-base58',
  litecoin: 'bech32-or-base58',
  dogecoin: 'bech32-or-base58',
};

/** What the book's entries and a destination are matched by; anything not bech32 on a UTXO network compares exactly. */
export function addressMatchingKey(network: Network, address: string): string {
  if (ADDRESS_CASE[network] === 'hex') return address.toLowerCase();
  return isBech32(address) ? address.toLowerCase() : address;
}
