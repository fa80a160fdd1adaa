import { randomBytes } from 'node:crypto';
import { HDKey } from '@scure/bip32';
import type { ChainMode } from './chain-parameters';
import { STANDARD_VERSIONS, checkedDepositIndex, depositAccountPath } from './deposit-addresses';
import type { DepositAccountKeys, DepositKeyFamily } from './deposit-addresses';
import { secretWeakness } from './secret-strength';

// The BIP32 master seed of the deposit addresses (hex): in production only the sweeper holds it (EVM_DEPOSIT_SEED).

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

/** The 32-byte private key of deposit address `index` (account/0/index), for the sweeper. */
export function depositPrivateKey(seed: Uint8Array, family: DepositKeyFamily, index: number, mode: ChainMode): Uint8Array {
  const key = HDKey.fromMasterSeed(seed).derive(`${depositAccountPath(family, mode)}/0/${checkedDepositIndex(index)}`);
  if (!key.privateKey) throw new Error('derived key has no private key');
  return key.privateKey;
}
