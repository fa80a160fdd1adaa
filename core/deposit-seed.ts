import { randomBytes } from 'node:crypto';
import { HDKey } from '@scure/bip32';
import { CHAIN_MODES } from './chain-parameters';
import type { ChainMode } from './chain-parameters';
import { DEPOSIT_KEY_FAMILIES, STANDARD_VERSIONS, checkedDepositIndex, depositAccountPath } from './deposit-addresses';
import type { DepositAccountKeys, DepositKeyFamily } from './deposit-addresses';
import { secretWeakness } from './secret-strength';

// A family's BIP32 master seed of deposit addresses (hex), one per family (EVM_DEPOSIT_SEED, BTC_DEPOSIT_SEED, …): in
// production only the sweeper reads them, and keeps only the account keys it derives (depositSigningKeys).

/** BIP32 takes 16 to 64 bytes; below 32 (256 bits) is refused: this seed guards every deposit. */
export const DEPOSIT_SEED_BYTES = { min: 32, max: 64 } as const;

/** A sentence that reads after the variable's name, or undefined for a usable seed. Never quotes it. */
export function depositSeedProblem(hex: string): string | undefined {
  const { min, max } = DEPOSIT_SEED_BYTES;
  if (!/^[0-9a-fA-F]+$/.test(hex) || hex.length % 2 !== 0 || hex.length < min * 2 || hex.length > max * 2) {
    return `must be ${min * 2} to ${max * 2} hex digits (a BIP32 seed of ${min} to ${max} bytes), e.g. openssl rand -hex 64`;
  }
  return secretWeakness(hex.toLowerCase());
}

export function parseDepositSeed(hex: string): Uint8Array {
  const problem = depositSeedProblem(hex);
  if (problem !== undefined) throw new Error(`the deposit seed ${problem}`);
  return Uint8Array.from(Buffer.from(hex, 'hex'));
}

/** 64 random bytes as 128 hex digits (what a BIP39 mnemonic yields), checked like a given one. */
export function generateDepositSeed(): string {
  for (;;) {
    const hex = randomBytes(DEPOSIT_SEED_BYTES.max).toString('hex');
    if (depositSeedProblem(hex) === undefined) return hex;
  }
}

/** Each family's seed as configured, hex; a family without one is not swept (and needs its XPUB for addresses). */
export type DepositSeeds = Partial<Record<DepositKeyFamily, string>>;

/** Account keys derived from the seed on demand (hardened levels need it), each derived once. */
export function accountKeysFromSeed(seed: Uint8Array): DepositAccountKeys {
  const cache = new Map<string, HDKey>();
  return {
    accountKey(family, mode) {
      const path = depositAccountPath(family, mode);
      let key = cache.get(path);
      if (!key) {
        key = HDKey.fromMasterSeed(seed, STANDARD_VERSIONS[mode === 'mainnet' ? 0 : 1]).derive(path);
        cache.set(path, key);
      }
      return key;
    },
  };
}

/** The family's account extended public key (xpub… or tpub…): what EVM_DEPOSIT_XPUB and its kin hold. */
export function accountPublicKeyFromSeed(seed: Uint8Array, family: DepositKeyFamily, mode: ChainMode): string {
  return accountKeysFromSeed(seed).accountKey(family, mode).publicExtendedKey;
}

/** What a sweeper signs with: per family it has a seed for, the account-level private keys of every chain mode. */
export interface DepositSigningKeys {
  readonly families: readonly DepositKeyFamily[];
  /** Undefined for a family this sweeper has no seed of. */
  accountKey(family: DepositKeyFamily, mode: ChainMode): HDKey | undefined;
}

/**
 * Derives each family's account keys (`m/purpose'/coin'/0'`, mainnet and test coin types) from its own seed once, at start;
 * the seeds are not kept, so a key of another family or account cannot be derived from what the sweeper holds.
 */
export function depositSigningKeys(seeds: DepositSeeds): DepositSigningKeys {
  const keys = new Map<string, HDKey>();
  const families = DEPOSIT_KEY_FAMILIES.filter((family) => seeds[family] !== undefined);
  for (const family of families) {
    const seed = parseDepositSeed(seeds[family]!);
    for (const mode of CHAIN_MODES) {
      const path = depositAccountPath(family, mode);
      const versions = STANDARD_VERSIONS[mode === 'mainnet' ? 0 : 1];
      if (!keys.has(`${family}:${path}`)) keys.set(`${family}:${path}`, HDKey.fromMasterSeed(seed, versions).derive(path));
    }
    seed.fill(0);
  }
  return { families, accountKey: (family, mode) => keys.get(`${family}:${depositAccountPath(family, mode)}`) };
}

/** The 32-byte private key of deposit address `index` (account/0/index) under an account-level private key. */
export function depositPrivateKey(accountKey: HDKey, index: number): Uint8Array {
  const key = accountKey.deriveChild(0).deriveChild(checkedDepositIndex(index));
  if (!key.privateKey) throw new Error('the account key holds no private key');
  return key.privateKey;
}
