import { ECDH } from 'node:crypto';
import { HARDENED_OFFSET, HDKey } from '@scure/bip32';
import type { Versions } from '@scure/bip32';
import * as bitcoin from 'bitcoinjs-lib';
import { getAddress, isAddress } from 'viem';
import { publicKeyToAddress } from 'viem/accounts';
import { isBech32 } from './address-format';
import { CHAIN_MODES, chainParameters } from './chain-parameters';
import type { ChainMode } from './chain-parameters';
import type { CryptoCurrency } from './currencies';
import { ASSETS, NETWORKS, NETWORK_DECLARATIONS, networkOfKeyFamily } from './networks';
import type { DepositKeyFamily } from './networks';

/**
 * Partners' deposit addresses, derived (BIP32) so that whoever holds the seed spends what arrives while
 * the side handing addresses out holds only each family's account xpub. Address i is account/0/i, i the
 * partner's deposit index; eth, usdc and pol share one key. Accounts: BIP44 m/44'/60'/0' (EVM) and
 * m/44'/3'/0' (doge, P2PKH); BIP84 m/84'/0'/0' (btc) and m/84'/2'/0' (ltc): native segwit, where a
 * restored wallet looks. UTXO testnets and regtest take coin type 1 (SLIP-44); EVM keeps 60 (wallets' habit).
 */
export type { DepositKeyFamily };
export const DEPOSIT_KEY_FAMILIES = [...new Set(NETWORKS.map((network) => NETWORK_DECLARATIONS[network].depositKeys.family))];

/** Each currency's key family (core/networks.ts): eth, pol and usdc share the EVM key. */
export const DEPOSIT_KEY_FAMILY = Object.fromEntries(
  ASSETS.map(({ currency, network }) => [currency, NETWORK_DECLARATIONS[network].depositKeys.family]),
) as Readonly<Record<CryptoCurrency, DepositKeyFamily>>;

/** The highest non-hardened BIP32 index: 2^31 - 1 partners per family. */
export const MAX_DEPOSIT_INDEX = HARDENED_OFFSET - 1;

/** A deposit index as given, once checked: a whole number from 0 to MAX_DEPOSIT_INDEX. */
export function checkedDepositIndex(index: number): number {
  if (!Number.isInteger(index) || index < 0 || index > MAX_DEPOSIT_INDEX) {
    throw new RangeError(`deposit index must be a whole number from 0 to ${MAX_DEPOSIT_INDEX}, got ${index}`);
  }
  return index;
}

/** The family's account key path, e.g. m/44'/60'/0'; the mainnet coin on mainnet only, testnet's on testnet and regtest. */
export function depositAccountPath(family: DepositKeyFamily, mode: ChainMode): string {
  const { purpose, mainnetCoin, testnetCoin } = NETWORK_DECLARATIONS[networkOfKeyFamily(family)].depositKeys;
  return `m/${purpose}'/${mode === 'mainnet' ? mainnetCoin : testnetCoin}'/0'`;
}

/** Configured xpubs (the API side) or a seed (development, tests, the sweeper); `mode` picks a seed's coin type. */
export interface DepositAccountKeys {
  accountKey(family: DepositKeyFamily, mode: ChainMode): HDKey;
}

/** Account keys as configured: one extended public key per family. */
export function accountKeysOf(publicKeys: Readonly<Record<DepositKeyFamily, HDKey>>): DepositAccountKeys {
  return { accountKey: (family) => publicKeys[family] };
}

/** Address `index` of the family on its network's mainnet, testnet or regtest. */
export function depositAddress(keys: DepositAccountKeys, family: DepositKeyFamily, index: number, mode: ChainMode): string {
  return addressOfPublicKey(family, depositKeyAt(keys.accountKey(family, mode), index), mode);
}

/** Every crypto currency's deposit address for one index; `chainModeOf` answers per family (network_config). */
export function depositAddresses(
  keys: DepositAccountKeys,
  index: number,
  chainModeOf: (family: DepositKeyFamily) => ChainMode,
): Record<CryptoCurrency, string> {
  const byFamily = Object.fromEntries(
    DEPOSIT_KEY_FAMILIES.map((family) => [family, depositAddress(keys, family, index, chainModeOf(family))]),
  ) as Record<DepositKeyFamily, string>;
  const entries = Object.entries(DEPOSIT_KEY_FAMILY).map(([currency, family]) => [currency, byFamily[family]]);
  return Object.fromEntries(entries) as Record<CryptoCurrency, string>;
}

/** The compressed public key at account/0/index. */
function depositKeyAt(accountKey: HDKey, index: number): Uint8Array {
  const publicKey = externalChainOf(accountKey).deriveChild(checkedDepositIndex(index)).publicKey;
  if (!publicKey) throw new Error('derived key has no public key');
  return publicKey;
}

/** account/0 per account key, cached: each address then costs one public derivation, not two. */
const EXTERNAL_CHAINS = new WeakMap<HDKey, HDKey>();

function externalChainOf(accountKey: HDKey): HDKey {
  let chain = EXTERNAL_CHAINS.get(accountKey);
  if (!chain) {
    chain = accountKey.deriveChild(0);
    EXTERNAL_CHAINS.set(accountKey, chain);
  }
  return chain;
}

/** The family's address format: EIP-55 for EVM, P2WPKH for btc and ltc, P2PKH for doge. */
export function addressOfPublicKey(family: DepositKeyFamily, compressedPublicKey: Uint8Array, mode: ChainMode): string {
  if (family === 'evm') {
    // An EVM address hashes both coordinates: node's OpenSSL decompresses the point.
    const uncompressed = ECDH.convertKey(Buffer.from(compressedPublicKey), 'secp256k1', undefined, 'hex', 'uncompressed') as string;
    return publicKeyToAddress(`0x${uncompressed}`);
  }
  const network = chainParameters(family, mode);
  const payment =
    family === 'doge'
      ? bitcoin.payments.p2pkh({ pubkey: compressedPublicKey, network })
      : bitcoin.payments.p2wpkh({ pubkey: compressedPublicKey, network });
  if (!payment.address) throw new Error(`no ${family} address for the derived key`);
  return payment.address;
}

/** The stored form (EIP-55, lower-case bech32), so an address read from a chain finds its account; undefined for a non-address. */
export function canonicalDepositAddress(family: DepositKeyFamily, address: string): string | undefined {
  if (address.length === 0 || address.length > 100) return undefined;
  if (family === 'evm') return isAddress(address, { strict: false }) ? getAddress(address.toLowerCase()) : undefined;
  if (family !== 'doge' && isBech32(address)) return address.toLowerCase();
  return /^[1-9A-HJ-NP-Za-km-z]+$/.test(address) ? address : undefined;
}

/** Serialization versions an account key may carry: BIP32's, SLIP-132's for BIP84, and the coin's own. */
export const STANDARD_VERSIONS: readonly [mainnet: Versions, testnet: Versions] = [
  { public: 0x0488b21e, private: 0x0488ade4 }, // xpub / xprv
  { public: 0x043587cf, private: 0x04358394 }, // tpub / tprv (testnet and regtest)
];
const SEGWIT_VERSIONS: readonly Versions[] = [
  { public: 0x04b24746, private: 0x04b2430c }, // zpub / zprv (BIP84 mainnet)
  { public: 0x045f1cf6, private: 0x045f18bc }, // vpub / vprv (BIP84 testnet)
];

function acceptedVersions(family: DepositKeyFamily): readonly Versions[] {
  if (family === 'evm') return STANDARD_VERSIONS;
  const own = family === 'btc' ? [] : CHAIN_MODES.map((mode) => chainParameters(family, mode).bip32);
  return [...STANDARD_VERSIONS, ...(family === 'doge' ? [] : SEGWIT_VERSIONS), ...own];
}

const EXTENDED_KEY_SHAPE = /^[1-9A-HJ-NP-Za-km-z]{100,120}$/;

/**
 * The family's account-level xpub, or a sentence that reads after the variable's name ("must be …"). Never
 * quotes the key; refuses a private one: the side that hands addresses out must not hold what spends them.
 */
export function parseAccountPublicKey(family: DepositKeyFamily, text: string): HDKey | string {
  const example = depositAccountPath(family, 'mainnet');
  if (!EXTENDED_KEY_SHAPE.test(text)) return `must be an extended public key (xpub…, base58) of the account ${example}`;
  let key: HDKey | undefined;
  for (const versions of acceptedVersions(family)) {
    try {
      key = HDKey.fromExtendedKey(text, versions);
      break;
    } catch {
      // Another version, a bad checksum or a point off the curve: the next versions, then the message below.
    }
  }
  if (!key) return `must be an extended public key (xpub…) of the account ${example}: it does not decode as one`;
  if (key.privateKey) return `holds a private key: give the account's extended public key (xpub…), never its private key`;
  if (key.depth !== 3 || key.index < HARDENED_OFFSET) {
    return `must be an account-level key (depth 3, a hardened account such as ${example}), not one at depth ${key.depth}`;
  }
  return key;
}
