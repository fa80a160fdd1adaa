import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { HDKey } from '@scure/bip32';
import { depositAddress } from '../../core/deposit-addresses';
import { generateDepositSeed, parseDepositSeed } from '../../core/deposit-seed';
import { InvalidSettingsError, loadSettings } from '../../core/settings';
import { MissingDepositKeysError, depositAccountKeys, depositKeyVariables } from '../../main/deposit-keys';
import { withDevelopmentDepositSeed } from '../../main/development-deposit-seed';
import { TEST_DEPOSIT_SEED, TEST_DEPOSIT_XPUBS } from '../support/test-config';

const TEST_SEED = parseDepositSeed(TEST_DEPOSIT_SEED);
const OTHER_SEED = generateDepositSeed();
/** One seed per family, here the test seed for each. */
const TEST_SEEDS = {
  EVM_DEPOSIT_SEED: TEST_DEPOSIT_SEED,
  BTC_DEPOSIT_SEED: TEST_DEPOSIT_SEED,
  LTC_DEPOSIT_SEED: TEST_DEPOSIT_SEED,
  DOGE_DEPOSIT_SEED: TEST_DEPOSIT_SEED,
};

function problemsOf(env: Record<string, string>): readonly string[] {
  try {
    loadSettings(env, '/');
    return [];
  } catch (error) {
    if (error instanceof InvalidSettingsError) return error.problems;
    throw error;
  }
}

describe('deposit key settings', () => {
  it('takes each family’s seed with the account key it derives', () => {
    const settings = loadSettings({ ...TEST_SEEDS, BTC_DEPOSIT_SEED: OTHER_SEED, ...TEST_DEPOSIT_XPUBS, BTC_DEPOSIT_XPUB: undefined }, '/');
    expect(settings.depositKeys.seeds).toEqual({
      evm: TEST_DEPOSIT_SEED,
      btc: OTHER_SEED,
      ltc: TEST_DEPOSIT_SEED,
      doge: TEST_DEPOSIT_SEED,
    });
    expect(settings.depositKeys.evmPublicKey).toBe(TEST_DEPOSIT_XPUBS.EVM_DEPOSIT_XPUB);
    expect(settings.depositKeys.dogePublicKey).toBe(TEST_DEPOSIT_XPUBS.DOGE_DEPOSIT_XPUB);
  });

  it('refuses a seed beside an EVM account key of another seed: deposits would be unspendable', () => {
    const problems = problemsOf({ EVM_DEPOSIT_SEED: OTHER_SEED, EVM_DEPOSIT_XPUB: TEST_DEPOSIT_XPUBS.EVM_DEPOSIT_XPUB! });
    expect(problems).toEqual([
      'EVM_DEPOSIT_XPUB is not the account key of EVM_DEPOSIT_SEED: deposits would go to addresses the sweeper cannot spend',
    ]);
  });

  it("refuses a UTXO family's account key of another seed, and takes its mainnet or its testnet account", () => {
    const other = parseDepositSeed(OTHER_SEED);
    const foreign = HDKey.fromMasterSeed(other).derive("m/84'/0'/0'").publicExtendedKey;
    expect(problemsOf({ ...TEST_SEEDS, ...TEST_DEPOSIT_XPUBS, BTC_DEPOSIT_XPUB: foreign, LTC_DEPOSIT_XPUB: foreign })).toEqual([
      'BTC_DEPOSIT_XPUB is not the account key of BTC_DEPOSIT_SEED; LTC_DEPOSIT_XPUB is not the account key of LTC_DEPOSIT_SEED: deposits would go to addresses the sweeper cannot spend',
    ]);
    // The EVM seed says nothing of the bitcoin account: each family is checked against its own seed only.
    expect(problemsOf({ EVM_DEPOSIT_SEED: TEST_DEPOSIT_SEED, ...TEST_DEPOSIT_XPUBS, BTC_DEPOSIT_XPUB: foreign })).toEqual([]);
    const testnet = HDKey.fromMasterSeed(TEST_SEED).derive("m/84'/1'/0'").publicExtendedKey;
    expect(problemsOf({ ...TEST_SEEDS, ...TEST_DEPOSIT_XPUBS, BTC_DEPOSIT_XPUB: testnet })).toEqual([]);
  });

  it('refuses a private extended key where the public one belongs, without repeating it', () => {
    const xprv = HDKey.fromMasterSeed(TEST_SEED).derive("m/84'/0'/0'").privateExtendedKey;
    const problems = problemsOf({ BTC_DEPOSIT_XPUB: xprv });
    expect(problems).toEqual([
      "BTC_DEPOSIT_XPUB holds a private key: give the account's extended public key (xpub…), never its private key",
    ]);
  });

  it('refuses a short or weak seed, naming the rule', () => {
    expect(problemsOf({ EVM_DEPOSIT_SEED: 'ab'.repeat(40) })).toEqual([
      'EVM_DEPOSIT_SEED must have at least 10 different characters (it has 2)',
    ]);
    expect(problemsOf({ EVM_DEPOSIT_SEED: '0123456789abcdef' })[0]).toMatch(/^EVM_DEPOSIT_SEED must be 64 to 128 hex digits/);
  });
});

describe('the account keys partners are created with', () => {
  it('needs every family: the refusal names each missing variable', () => {
    const only = loadSettings({ EVM_DEPOSIT_XPUB: TEST_DEPOSIT_XPUBS.EVM_DEPOSIT_XPUB! }, '/');
    expect(() => depositAccountKeys(only)).toThrow(MissingDepositKeysError);
    expect(() => depositAccountKeys(only)).toThrow(/^BTC_DEPOSIT_XPUB, DOGE_DEPOSIT_XPUB, LTC_DEPOSIT_XPUB must be set to create partners/);
  });

  it('derives from the configured extended public keys alone as from the seed', () => {
    const fromPublicKeys = depositAccountKeys(loadSettings({ ...TEST_DEPOSIT_XPUBS }, '/'));
    const fromSeed = depositAccountKeys(loadSettings(TEST_SEEDS, '/'));
    for (const family of ['evm', 'btc', 'ltc', 'doge'] as const) {
      expect(depositAddress(fromPublicKeys, family, 31, 'mainnet')).toBe(depositAddress(fromSeed, family, 31, 'mainnet'));
    }
    expect(depositAddress(fromPublicKeys, 'evm', 0, 'mainnet')).toBe('0x9858EfFD232B4033E47d90003D41EC34EcaEda94');
  });

  it('hands the sweeper the seeds, and the worker and the API only the extended public keys (npm run start:cluster)', () => {
    const settings = loadSettings(TEST_SEEDS, '/');
    expect(depositKeyVariables(settings, 'api')).toEqual(TEST_DEPOSIT_XPUBS);
    expect(depositKeyVariables(settings, 'worker')).toEqual(TEST_DEPOSIT_XPUBS);
    expect(depositKeyVariables(settings, 'sweeper')).toEqual({ ...TEST_DEPOSIT_XPUBS, ...TEST_SEEDS });
    expect(depositKeyVariables(loadSettings({}, '/'), 'sweeper')).toEqual({});
  });
});

describe('the development deposit seed (npm start)', () => {
  let dataDir: string;
  beforeEach(() => {
    dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'deposit-seed-'));
  });
  afterEach(() => fs.rmSync(dataDir, { recursive: true, force: true }));

  it('is created once, readable by its owner only, and the same on every later start', () => {
    const settings = loadSettings({ DATA_DIR: dataDir }, '/');
    expect(withDevelopmentDepositSeed(settings, { create: false })).toBe(settings);
    const first = withDevelopmentDepositSeed(settings, { create: true }).depositKeys.seeds;
    expect(first.evm).toMatch(/^[0-9a-f]{128}$/);
    expect(first).toEqual({ evm: first.evm, btc: first.evm, ltc: first.evm, doge: first.evm });
    expect(fs.statSync(path.join(dataDir, 'deposit-seed')).mode & 0o777).toBe(0o600);
    expect(withDevelopmentDepositSeed(settings, { create: true }).depositKeys.seeds).toEqual(first);
    expect(withDevelopmentDepositSeed(settings, { create: false }).depositKeys.seeds).toEqual(first);
  });

  it('is left alone when a deposit key variable is set', () => {
    const settings = loadSettings({ DATA_DIR: dataDir, ...TEST_DEPOSIT_XPUBS }, '/');
    expect(withDevelopmentDepositSeed(settings, { create: true })).toBe(settings);
    expect(fs.existsSync(path.join(dataDir, 'deposit-seed'))).toBe(false);
  });

  it('refuses a damaged file, naming it and not its content', () => {
    fs.writeFileSync(path.join(dataDir, 'deposit-seed'), 'not a seed\n');
    const settings = loadSettings({ DATA_DIR: dataDir }, '/');
    expect(() => withDevelopmentDepositSeed(settings, { create: true })).toThrow(
      /deposit-seed: the development deposit seed must be 64 to 128 hex/,
    );
  });
});
