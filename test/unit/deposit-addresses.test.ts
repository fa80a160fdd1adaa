import { createECDH, pbkdf2Sync } from 'node:crypto';
import { HDKey } from '@scure/bip32';
import * as bitcoin from 'bitcoinjs-lib';
import { privateKeyToAddress } from 'viem/accounts';
import { CHAIN_MODES, chainParameters } from '../../core/chain-parameters';
import type { ChainMode } from '../../core/chain-parameters';
import {
  DEPOSIT_KEY_FAMILIES,
  MAX_DEPOSIT_INDEX,
  accountKeysOf,
  canonicalDepositAddress,
  depositAccountPath,
  depositAddress,
  depositAddresses,
  parseAccountPublicKey,
} from '../../core/deposit-addresses';
import type { DepositKeyFamily } from '../../core/deposit-addresses';
import {
  accountKeysFromSeed,
  accountPublicKeyFromSeed,
  depositPrivateKey,
  depositSeedProblem,
  depositSigningKeys,
  generateDepositSeed,
  parseDepositSeed,
} from '../../core/deposit-seed';

/** BIP39's best-known test mnemonic; every wallet publishes its first addresses (BIP84 lists bitcoin's). */
const MNEMONIC = 'abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon about';
const SEED = Uint8Array.from(pbkdf2Sync(MNEMONIC.normalize('NFKD'), 'mnemonic', 2048, 64, 'sha512'));
const FROM_SEED = accountKeysFromSeed(SEED);
const SEED_HEX = Buffer.from(SEED).toString('hex');
/** As the sweeper holds them: every family's account keys from its seed (here one seed for all), the seed not kept. */
const SIGNING = depositSigningKeys({ evm: SEED_HEX, btc: SEED_HEX, ltc: SEED_HEX, doge: SEED_HEX });

/** The account keys as the API side holds them: each family's xpub, parsed back. */
function publicKeysOnly(seed: Uint8Array, mode: ChainMode) {
  const parsed = DEPOSIT_KEY_FAMILIES.map((family) => {
    const key = parseAccountPublicKey(family, accountPublicKeyFromSeed(seed, family, mode));
    if (typeof key === 'string') throw new Error(key);
    return [family, key] as const;
  });
  return accountKeysOf(Object.fromEntries(parsed) as Record<DepositKeyFamily, HDKey>);
}

describe('deposit addresses derived from the service HD keys', () => {
  it('takes the BIP44 and BIP84 account paths, coin type 1 on UTXO testnets and regtest', () => {
    expect(depositAccountPath('evm', 'mainnet')).toBe("m/44'/60'/0'");
    expect(depositAccountPath('evm', 'testnet')).toBe("m/44'/60'/0'");
    expect(depositAccountPath('btc', 'mainnet')).toBe("m/84'/0'/0'");
    expect(depositAccountPath('ltc', 'mainnet')).toBe("m/84'/2'/0'");
    expect(depositAccountPath('doge', 'mainnet')).toBe("m/44'/3'/0'");
    expect(depositAccountPath('btc', 'testnet')).toBe("m/84'/1'/0'");
    expect(depositAccountPath('doge', 'testnet')).toBe("m/44'/1'/0'");
    expect(depositAccountPath('evm', 'regtest')).toBe("m/44'/60'/0'");
    expect(depositAccountPath('btc', 'regtest')).toBe("m/84'/1'/0'");
    expect(depositAccountPath('ltc', 'regtest')).toBe("m/84'/1'/0'");
    expect(depositAccountPath('doge', 'regtest')).toBe("m/44'/1'/0'");
  });

  it.each([
    ['evm', 0, '0x9858EfFD232B4033E47d90003D41EC34EcaEda94'],
    ['btc', 0, 'bc1qcr8te4kr609gcawutmrza0j4xv80jy8z306fyu'],
    ['btc', 1, 'bc1qnjg0jd8228aq7egyzacy8cys3knf9xvrerkf9g'],
    ['ltc', 0, 'ltc1qjmxnz78nmc8nq77wuxh25n2es7rzm5c2rkk4wh'],
    ['ltc', 1, 'ltc1qwlezpr3890hcp6vva9twqh27mr6edadreqvhnn'],
    ['doge', 0, 'DBus3bamQjgJULBJtYXpEzDWQRwF5iwxgC'],
  ] as const)("gives the known %s address %i of the 'abandon … about' seed, from its xpub alone", (family, index, address) => {
    expect(depositAddress(publicKeysOnly(SEED, 'mainnet'), family, index, 'mainnet')).toBe(address);
    expect(depositAddress(FROM_SEED, family, index, 'mainnet')).toBe(address);
  });

  it("reads BIP84's published account zpub and the known EVM account xpub", () => {
    const zpub = 'zpub6rFR7y4Q2AijBEqTUquhVz398htDFrtymD9xYYfG1m4wAcvPhXNfE3EfH1r1ADqtfSdVCToUG868RvUUkgDKf31mGDtKsAYz2oz2AGutZYs';
    const btc = parseAccountPublicKey('btc', zpub);
    const xpub = 'xpub6DCoCpSuQZB2jawqnGMEPS63ePKWkwWPH4TU45Q7LPXWuNd8TMtVxRrgjtEshuqpK3mdhaWHPFsBngh5GFZaM6si3yZdUsT8ddYM3PwnATt';
    expect(accountPublicKeyFromSeed(SEED, 'evm', 'mainnet')).toBe(xpub);
    const evm = parseAccountPublicKey('evm', xpub);
    if (typeof btc === 'string' || typeof evm === 'string') throw new Error('the published keys do not parse');
    const keys = accountKeysOf({ evm, btc, ltc: evm, doge: evm });
    expect(depositAddress(keys, 'btc', 0, 'mainnet')).toBe('bc1qcr8te4kr609gcawutmrza0j4xv80jy8z306fyu');
    expect(depositAddress(keys, 'evm', 0, 'mainnet')).toBe('0x9858EfFD232B4033E47d90003D41EC34EcaEda94');
  });

  it('gives eth, usdc and pol one address per index, and distinct indexes distinct addresses', () => {
    const mainnet = () => 'mainnet' as const;
    const first = depositAddresses(FROM_SEED, 7, mainnet);
    const second = depositAddresses(FROM_SEED, 8, mainnet);
    expect(first.usdc).toBe(first.eth);
    expect(first.pol).toBe(first.eth);
    for (const currency of ['eth', 'btc', 'ltc', 'doge'] as const) expect(first[currency]).not.toBe(second[currency]);
    expect(depositAddresses(publicKeysOnly(SEED, 'mainnet'), 7, mainnet)).toEqual(first);
  });

  it('formats testnet addresses from the coin type 1 account when the network is a testnet', () => {
    const testnet = depositAddresses(publicKeysOnly(SEED, 'testnet'), 0, () => 'testnet');
    expect(testnet.btc).toMatch(/^tb1q/);
    expect(testnet.ltc).toMatch(/^tltc1q/);
    expect(testnet.doge).toMatch(/^n/);
    expect(testnet.eth).toBe('0x9858EfFD232B4033E47d90003D41EC34EcaEda94');
    expect(depositAddresses(FROM_SEED, 0, () => 'testnet')).toEqual(testnet);
  });

  it("formats regtest addresses from testnet's coin type 1 account (tpub) with regtest's prefixes", () => {
    const regtest = depositAddresses(publicKeysOnly(SEED, 'regtest'), 0, () => 'regtest');
    expect(regtest.btc).toMatch(/^bcrt1q/);
    expect(regtest.ltc).toMatch(/^rltc1q/);
    expect(regtest.doge).toMatch(/^[mn]/);
    expect(regtest.eth).toBe('0x9858EfFD232B4033E47d90003D41EC34EcaEda94');
    expect(depositAddresses(FROM_SEED, 0, () => 'regtest')).toEqual(regtest);
    expect(accountPublicKeyFromSeed(SEED, 'btc', 'regtest')).toMatch(/^tpub/);
    expect(accountPublicKeyFromSeed(SEED, 'btc', 'regtest')).toBe(accountPublicKeyFromSeed(SEED, 'btc', 'testnet'));
  });

  it("gives on regtest bitcoinjs' encoding of the coin type 1 key, under regtest's own versions", () => {
    // The key by BIP32 path and the encodings by bitcoinjs-lib's own helpers, not by chainParameters under test.
    const segwitKey = HDKey.fromMasterSeed(SEED).derive("m/84'/1'/0'/0/0").publicKey!;
    const segwitHash = bitcoin.crypto.hash160(segwitKey);
    expect(depositAddress(FROM_SEED, 'btc', 0, 'regtest')).toBe(
      bitcoin.payments.p2wpkh({ pubkey: segwitKey, network: bitcoin.networks.regtest }).address,
    );
    expect(depositAddress(FROM_SEED, 'ltc', 0, 'regtest')).toBe(bitcoin.address.toBech32(segwitHash, 0, 'rltc'));
    const legacyKey = HDKey.fromMasterSeed(SEED).derive("m/44'/1'/0'/0/0").publicKey!;
    expect(depositAddress(FROM_SEED, 'doge', 0, 'regtest')).toBe(bitcoin.address.toBase58Check(bitcoin.crypto.hash160(legacyKey), 0x6f));
    // One key on testnet and regtest: only the prefix differs.
    expect(bitcoin.address.fromBech32(depositAddress(FROM_SEED, 'btc', 0, 'regtest')).data).toEqual(
      bitcoin.address.fromBech32(depositAddress(FROM_SEED, 'btc', 0, 'testnet')).data,
    );
  });

  it('takes bitcoin regtest from bitcoinjs-lib, and the regtest versions of litecoind and dogecoind', () => {
    expect(chainParameters('btc', 'regtest')).toBe(bitcoin.networks.regtest);
    const tpub = { public: 0x043587cf, private: 0x04358394 };
    expect(chainParameters('ltc', 'regtest')).toMatchObject({ bech32: 'rltc', bip32: tpub, pubKeyHash: 0x6f, scriptHash: 0x3a, wif: 0xef });
    expect(chainParameters('doge', 'regtest')).toMatchObject({ bip32: tpub, pubKeyHash: 0x6f, scriptHash: 0xc4, wif: 0xef });
  });

  it.each(DEPOSIT_KEY_FAMILIES.flatMap((family) => CHAIN_MODES.map((mode) => [family, mode] as const)))(
    "derives %s private keys on %s whose addresses are the xpub's",
    (family, mode) => {
      const publicSide = publicKeysOnly(SEED, mode);
      for (const index of [0, 1, 4242, MAX_DEPOSIT_INDEX]) {
        const privateKey = depositPrivateKey(SIGNING.accountKey(family, mode)!, index);
        // The public key from the private one by node's OpenSSL, not by the BIP32 library under test.
        const ecdh = createECDH('secp256k1');
        ecdh.setPrivateKey(Buffer.from(privateKey));
        const compressed = ecdh.getPublicKey(undefined, 'compressed');
        const fromPrivate =
          family === 'evm'
            ? privateKeyToAddress(`0x${Buffer.from(privateKey).toString('hex')}`)
            : family === 'doge'
              ? bitcoin.payments.p2pkh({ pubkey: compressed, network: chainParameters(family, mode) }).address
              : bitcoin.payments.p2wpkh({ pubkey: compressed, network: chainParameters(family, mode) }).address;
        expect(fromPrivate).toBe(depositAddress(publicSide, family, index, mode));
      }
    },
  );

  it.each([-1, 1.5, MAX_DEPOSIT_INDEX + 1, Number.NaN])('refuses the index %p (hardened or not a BIP32 index)', (index) => {
    expect(() => depositAddress(FROM_SEED, 'evm', index, 'mainnet')).toThrow(/deposit index must be a whole number/);
    expect(() => depositPrivateKey(SIGNING.accountKey('evm', 'mainnet')!, index)).toThrow(/deposit index must be a whole number/);
  });
});

describe('account extended public keys as configured (EVM_DEPOSIT_XPUB and kin)', () => {
  const root = HDKey.fromMasterSeed(SEED);

  it('refuses a private key, naming the rule and never the key', () => {
    const xprv = root.derive("m/44'/60'/0'").privateExtendedKey;
    const problem = parseAccountPublicKey('evm', xprv);
    expect(problem).toBe("holds a private key: give the account's extended public key (xpub…), never its private key");
  });

  it.each([
    ['the master key', root.publicExtendedKey, 'not one at depth 0'],
    ['an address-level key', root.derive("m/44'/60'/0'/0/0").publicExtendedKey, 'not one at depth 5'],
    ['a non-hardened depth-3 key', root.derive("m/44'/60'/0").publicExtendedKey, 'a hardened account'],
  ])('refuses %s: only account-level keys', (_what, key, rule) => {
    expect(parseAccountPublicKey('evm', key)).toContain(rule);
  });

  it.each([
    ['text', 'not-a-key', 'must be an extended public key'],
    ['a key with a broken checksum', `${accountPublicKeyFromSeed(SEED, 'evm', 'mainnet').slice(0, -1)}1`, 'does not decode'],
    ['an overlong value', 'x'.repeat(5000), 'must be an extended public key'],
  ])('refuses %s', (_what, text, rule) => {
    const problem = parseAccountPublicKey('evm', text);
    expect(problem).toContain(rule);
    expect(problem).not.toContain(text);
  });

  it("accepts a coin's own versions (Ltub, dgub) and tpub for a testnet", () => {
    for (const family of ['ltc', 'doge'] as const) {
      const own = HDKey.fromMasterSeed(SEED, chainParameters(family, 'mainnet').bip32).derive(depositAccountPath(family, 'mainnet'));
      const parsed = parseAccountPublicKey(family, own.publicExtendedKey);
      expect(typeof parsed).not.toBe('string');
    }
    expect(typeof parseAccountPublicKey('btc', accountPublicKeyFromSeed(SEED, 'btc', 'testnet'))).not.toBe('string');
  });
});

describe('the deposit seed (EVM_DEPOSIT_SEED)', () => {
  it("gives a sweeper a family's account keys only from that family's own seed", () => {
    const other = generateDepositSeed();
    const keys = depositSigningKeys({ evm: SEED_HEX, btc: other });
    expect([...keys.families].sort()).toEqual(['btc', 'evm']);
    // Account-level private keys (depth 3), nothing above them: no other account or family derives from what is held.
    const evm = keys.accountKey('evm', 'mainnet')!;
    expect(evm.depth).toBe(3);
    expect(evm.privateKey).not.toBeNull();
    expect(evm.publicExtendedKey).toBe(FROM_SEED.accountKey('evm', 'mainnet').publicExtendedKey);
    expect(keys.accountKey('btc', 'regtest')!.publicExtendedKey).toBe(accountPublicKeyFromSeed(parseDepositSeed(other), 'btc', 'regtest'));
    expect(keys.accountKey('btc', 'mainnet')!.publicExtendedKey).not.toBe(FROM_SEED.accountKey('btc', 'mainnet').publicExtendedKey);
    expect(keys.accountKey('ltc', 'mainnet')).toBeUndefined();
    expect(keys.accountKey('doge', 'testnet')).toBeUndefined();
  });

  it('accepts 32 to 64 random bytes as hex, and generates 64', () => {
    const generated = generateDepositSeed();
    expect(generated).toMatch(/^[0-9a-f]{128}$/);
    expect(depositSeedProblem(generated)).toBeUndefined();
    expect(depositSeedProblem(generated.slice(0, 64))).toBeUndefined();
    expect(parseDepositSeed(generated)).toHaveLength(64);
    expect(generateDepositSeed()).not.toBe(generated);
  });

  it.each([
    ['31 bytes', 'ab'.repeat(15) + '0123456789abcdef'.repeat(2), 'must be 64 to 128 hex digits'],
    ['65 bytes', '0123456789abcdef'.repeat(8) + 'ab', 'must be 64 to 128 hex digits'],
    ['an odd number of digits', '0123456789abcdef'.repeat(4) + 'a', 'must be 64 to 128 hex digits'],
    ['a mnemonic', MNEMONIC, 'must be 64 to 128 hex digits'],
    ['a repetition', 'ab'.repeat(40), 'must have at least 10 different characters'],
  ])('refuses %s, never quoting it', (_what, hex, rule) => {
    const problem = depositSeedProblem(hex);
    expect(problem).toContain(rule);
    expect(problem).not.toContain(hex);
    expect(() => parseDepositSeed(hex)).toThrow(rule);
  });
});

describe('canonical deposit addresses (what a lookup compares)', () => {
  it('checksums EVM hex as chains print it, lower-cases bech32, keeps base58', () => {
    expect(canonicalDepositAddress('evm', '0x9858effd232b4033e47d90003d41ec34ecaeda94')).toBe('0x9858EfFD232B4033E47d90003D41EC34EcaEda94');
    expect(canonicalDepositAddress('btc', 'BC1QCR8TE4KR609GCAWUTMRZA0J4XV80JY8Z306FYU')).toBe('bc1qcr8te4kr609gcawutmrza0j4xv80jy8z306fyu');
    expect(canonicalDepositAddress('doge', 'DBus3bamQjgJULBJtYXpEzDWQRwF5iwxgC')).toBe('DBus3bamQjgJULBJtYXpEzDWQRwF5iwxgC');
    expect(canonicalDepositAddress('evm', '0x1234')).toBeUndefined();
    expect(canonicalDepositAddress('btc', 'not an address')).toBeUndefined();
    expect(canonicalDepositAddress('btc', 'b'.repeat(101))).toBeUndefined();
  });
});
