/**
 * `npm run deposit-xpubs [-- --testnet | --regtest]`: each family's account public key from its seed (EVM_DEPOSIT_SEED,
 * BTC_DEPOSIT_SEED, …), a `VARIABLE=value` line per family whose seed is set, for network_config's chain (mainnet unless
 * a flag says otherwise). Run where the seeds live (hardened paths need them); prints no secret.
 */
import type { ChainMode } from '../core/chain-parameters';
import { DEPOSIT_KEY_FAMILIES } from '../core/deposit-addresses';
import { accountPublicKeyFromSeed, parseDepositSeed } from '../core/deposit-seed';
import { DEPOSIT_SEED_VARIABLES, DEPOSIT_XPUB_VARIABLES } from './deposit-keys';
import { loadProcessSettings } from './process-support';

const CHAIN_MODE_FLAGS: ReadonlyMap<string, ChainMode> = new Map<string, ChainMode>([
  ['--testnet', 'testnet'],
  ['--regtest', 'regtest'],
]);

/** The chain the flags name: none for mainnet, else exactly one. */
function chainModeOf(args: readonly string[]): ChainMode {
  if (args.length === 0) return 'mainnet';
  const mode = args.length === 1 ? CHAIN_MODE_FLAGS.get(args[0]!) : undefined;
  if (mode === undefined) throw new Error('usage: npm run deposit-xpubs [-- --testnet | --regtest]');
  return mode;
}

function main(): void {
  const mode = chainModeOf(process.argv.slice(2));
  const { seeds } = loadProcessSettings().depositKeys;
  const given = DEPOSIT_KEY_FAMILIES.filter((family) => seeds[family] !== undefined);
  if (given.length === 0) throw new Error(`set at least one of ${Object.values(DEPOSIT_SEED_VARIABLES).join(', ')}`);
  for (const family of given) {
    const seed = parseDepositSeed(seeds[family]!);
    process.stdout.write(`${DEPOSIT_XPUB_VARIABLES[family]}=${accountPublicKeyFromSeed(seed, family, mode)}\n`);
  }
}

try {
  main();
} catch (error) {
  // A refusal for whoever runs it (a missing or weak seed, a usage mistake): the message, no stack.
  process.stderr.write(`${error instanceof Error ? error.message : String(error)}\n`);
  process.exit(1);
}
