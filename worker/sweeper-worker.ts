import { createSweeperActivities } from '../activities';
import { EvmSweeper } from '../activities/adapters/chain/evm/evm-sweeper';
import { UtxoDepositSweeper } from '../activities/adapters/chain/utxo/utxo-deposit-sweeper';
import type { DepositSigningKeys } from '../core/deposit-seed';
import { NETWORK_DECLARATIONS } from '../core/networks';
import type { Network } from '../core/networks';
import type { Settings } from '../core/settings';
import { SWEEP_THRESHOLD_DEFAULTS } from '../core/settings/declarations/sweeps';
import { evmNetworkConfigs, utxoAdapter } from './network-configs';
import type { ChainSettings } from './network-configs';
import { runWorkerProcess } from './worker-process';
import type { RunningWorker, WorkerProcessOptions, WorkerProcessParts } from './worker-process';

export interface SweeperOptions extends Omit<WorkerProcessOptions, 'settings'> {
  settings: SweeperSettings;
  /** The families' account keys, derived from their seeds before (depositSigningKeys): the seeds are not passed on. */
  keys: DepositSigningKeys;
}

export type SweeperSettings = ChainSettings & Partial<Pick<Settings, 'databaseTimeouts' | 'temporal' | 'sweeps'>>;

/** The networks with a node configured, split by whether the sweeper has their family's key. */
export function sweptNetworks(
  settings: ChainSettings,
  keys: Pick<DepositSigningKeys, 'families'>,
): { swept: Network[]; unswept: Network[] } {
  const configured = [...Object.keys(settings.evmNetworks ?? {}), ...Object.keys(settings.utxoNetworks ?? {})] as Network[];
  const hasKey = (network: Network) => keys.families.includes(NETWORK_DECLARATIONS[network].depositKeys.family);
  return { swept: configured.filter(hasKey), unswept: configured.filter((network) => !hasKey(network)) };
}

/** How often each sweeper looks for what is due, and a sweep at its transactions. */
function sweepPollIntervalMs(settings: Pick<SweeperSettings, 'sweeps'>): number {
  return settings.sweeps?.pollIntervalMs ?? 5_000;
}

function sweepThreshold(settings: SweeperSettings, currency: keyof typeof SWEEP_THRESHOLD_DEFAULTS.deployment): string {
  return settings.sweeps?.thresholds?.[currency] ?? SWEEP_THRESHOLD_DEFAULTS.deployment[currency];
}

/** EVM deposit addresses are signed for with the EVM account key; without it, no EVM network is swept here. */
function evmSweeping(settings: SweeperSettings, parts: WorkerProcessParts, keys: DepositSigningKeys) {
  const networks = evmNetworkConfigs(settings);
  const accountKey = keys.accountKey('evm', 'mainnet');
  if (Object.keys(networks).length === 0 || !accountKey) return {};
  const { pool, clock, log, identityGuard } = parts;
  return {
    evmSweeps: {
      sweeper: new EvmSweeper({ pool, networks, accountKey, clock, log, identityGuard }),
      thresholds: { eth: sweepThreshold(settings, 'eth'), pol: sweepThreshold(settings, 'pol'), usdc: sweepThreshold(settings, 'usdc') },
      pollIntervalMs: sweepPollIntervalMs(settings),
    },
  };
}

/** A UTXO network is swept when its family's account keys are here (UtxoDepositSweeper.networks). */
function utxoSweeping(settings: SweeperSettings, parts: WorkerProcessParts, keys: DepositSigningKeys) {
  const { pool, clock, log, identityGuard } = parts;
  const adapter = utxoAdapter(settings, { pool, clock, log, identityGuard });
  if (!adapter) return {};
  const sweeper = new UtxoDepositSweeper({
    pool,
    adapter,
    keys,
    thresholds: {
      bitcoin: sweepThreshold(settings, 'btc'),
      litecoin: sweepThreshold(settings, 'ltc'),
      dogecoin: sweepThreshold(settings, 'doge'),
    },
    clock,
    log,
  });
  return { utxoSweeps: { sweeper, pollIntervalMs: sweepPollIntervalMs(settings) } };
}

/**
 * The sweeper (`npm run sweeper`): the deposit sweeps' workflows and activities on their own task queue, and nothing else.
 * The only process given deposit seeds; it derives each family's account keys at start and keeps only those, and has no
 * webhook, bank, bank-document or partner-chosen outbound activity (activities/index.ts, createSweeperActivities).
 */
export async function startSweeperWorker(options: SweeperOptions): Promise<RunningWorker> {
  const { keys } = options;
  for (const network of sweptNetworks(options.settings, keys).unswept) {
    const family = NETWORK_DECLARATIONS[network].depositKeys.family;
    options.log.warn(
      `${network} is not swept: no ${family.toUpperCase()}_DEPOSIT_SEED here; its credited deposits stay at their addresses`,
    );
  }
  return runWorkerProcess(options, undefined, (parts) =>
    createSweeperActivities({
      pool: parts.pool,
      clock: parts.clock,
      log: parts.log,
      ...evmSweeping(options.settings, parts, keys),
      ...utxoSweeping(options.settings, parts, keys),
    }),
  );
}
