/**
 * `npm run deposit-xpubs [-- --testnet]`: EVM_DEPOSIT_SEED's account public keys, a `VARIABLE=value` line per family.
 * Run where the seed lives (hardened paths need it); prints no secret.
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
