/**
 * `npm run deposit-xpubs [-- --testnet]`: the account extended public keys of EVM_DEPOSIT_SEED, one
 * `VARIABLE=value` line per family, for whoever creates partners (docs/production.md, "Deposit
 * keys"). Run it where the seed lives: the hardened levels of the paths need it. It prints no
 * secret; `--testnet` gives the UTXO families' testnet accounts (coin type 1).
 */
import { DEPOSIT_KEY_FAMILIES } from '../core/deposit-addresses';
import { accountPublicKeyFromSeed, parseDepositSeed } from '../core/deposit-seed';
import { DEPOSIT_XPUB_VARIABLES } from './deposit-keys';
import { loadProcessSettings, requireSetting } from './process-support';

function main(): void {
  const args = process.argv.slice(2);
  if (args.some((arg) => arg !== '--testnet')) throw new Error('usage: npm run deposit-xpubs [-- --testnet]');
  const mainnet = !args.includes('--testnet');
  const seed = parseDepositSeed(requireSetting(loadProcessSettings().depositKeys.evmSeed, 'EVM_DEPOSIT_SEED'));
  for (const family of DEPOSIT_KEY_FAMILIES) {
    process.stdout.write(`${DEPOSIT_XPUB_VARIABLES[family]}=${accountPublicKeyFromSeed(seed, family, mainnet)}\n`);
  }
}

try {
  main();
} catch (error) {
  // A refusal for whoever runs it (a missing or weak seed, a usage mistake): the message, no stack.
  process.stderr.write(`${error instanceof Error ? error.message : String(error)}\n`);
  process.exit(1);
}
