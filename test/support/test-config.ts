import { DEPOSIT_KEY_FAMILIES } from '../../core/deposit-addresses';
import { accountKeysFromSeed, accountPublicKeyFromSeed, depositSigningKeys, parseDepositSeed } from '../../core/deposit-seed';
import { RAILS } from '../../core/rails';
import { DEPOSIT_XPUB_VARIABLES } from '../../main/deposit-keys';

/**
 * The tests' deposit seed: the BIP32 seed of BIP39's public test mnemonic ("abandon × 11, about"),
 * fixed so that every process of a run derives the same addresses, and public so nobody mistakes
 * it for a key that may hold anything.
 */
export const TEST_DEPOSIT_SEED =
  '5eb00bbddcf069084889a8ab9155568165f5c453ccb85e70811aaed6f6da5fc19a5ac40b389cd370d086206dec8aa6c43daea6690f20ad3d8d48b2d2ce9e38e4';

/** What the tests' fixtures create partners with (test/support/fixtures.ts). */
export const TEST_DEPOSIT_KEYS = accountKeysFromSeed(parseDepositSeed(TEST_DEPOSIT_SEED));

/** The sweeper's account keys of the test seed, every family's (as the sweeper derives them: seeds not kept). */
export const TEST_SIGNING_KEYS = depositSigningKeys({
  evm: TEST_DEPOSIT_SEED,
  btc: TEST_DEPOSIT_SEED,
  ltc: TEST_DEPOSIT_SEED,
  doge: TEST_DEPOSIT_SEED,
});

/** The EVM deposit account's private key of the test seed: what an EvmSweeper signs with. */
export const TEST_EVM_ACCOUNT_KEY = TEST_SIGNING_KEYS.accountKey('evm', 'mainnet')!;

/** EVM_DEPOSIT_XPUB and its kin of the test seed (mainnet paths, as network_config ships): what `ops partner create` is given. */
export const TEST_DEPOSIT_XPUBS: Readonly<Record<string, string>> = Object.fromEntries(
  DEPOSIT_KEY_FAMILIES.map((family) => [
    DEPOSIT_XPUB_VARIABLES[family],
    accountPublicKeyFromSeed(parseDepositSeed(TEST_DEPOSIT_SEED), family, 'mainnet'),
  ]),
);

/** Settings the test stack's worker runs with: short timers, one deny-listed address, one rejected IBAN (no deposit seed: only the sweeper holds one). */
export const TEST_WORKER_SETTINGS = {
  CHAIN_CONFIRMATION_DELAY_MS: '300',
  BANK_SETTLEMENT_DELAY_MS: '300',
  TRAVEL_RULE_DEADLINE_MS: '4000',
  TRAVEL_RULE_THRESHOLD_EUR: '1000',
  DENY_LIST_ADDRESSES: '0x000000000000000000000000000000000000dEaD',
  SIMULATED_BANK_REJECT_IBANS: 'FR7630006000011234567890189',
} as const;

/** SIMULATED_RAILS for a production entry point (main/worker.main.ts) started by a test: no bank or chain node, every rail simulated. */
export const EVERY_RAIL_SIMULATED = RAILS.join(',');
