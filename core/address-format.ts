import * as bitcoin from 'bitcoinjs-lib';

/** Bech32 or bech32m of any prefix; a valid one compares in lower case (BIP 173 forbids mixed case). */
export function isBech32(address: string): boolean {
  return parses(() => bitcoin.address.fromBech32(address));
}

/** Base58 with a valid checksum, of any version byte. */
export function isBase58Check(address: string): boolean {
  return parses(() => bitcoin.address.fromBase58Check(address));
}

function parses(parse: () => unknown): boolean {
  try {
    parse();
    return true;
  } catch {
    return false;
  }
}
