import { createActivities } from '../activities';
import type { WorkerActivities } from '../activities';
import { SimulatedBankAdapter } from '../activities/adapters/bank/simulated-bank.adapter';
import { SimulatedChainAdapter } from '../activities/adapters/chain/simulated-chain.adapter';
import { ChainRouter } from '../activities/adapters/chain/chain-router';
import type { NetworkAdapter } from '../activities/adapters/chain/chain-router';
import type { ChainAdapter } from '../activities/adapters/chain/chain-adapter';
import { EvmChainAdapter } from '../activities/adapters/chain/evm/evm-chain.adapter';
import { EvmSweeper } from '../activities/adapters/chain/evm/evm-sweeper';
import type { EvmNetworkConfig } from '../activities/adapters/chain/evm/evm-network-config';
import type { UtxoChainAdapter } from '../activities/adapters/chain/utxo/utxo-chain.adapter';
import type { DepositWatchMetrics, EvmDepositWatchConfig } from '../activities/evm-deposit.activities';
import type { EvmNetwork } from '../core/networks';
import { railsOfWorker } from '../core/rails';
import type { DevelopmentSettings, Settings } from '../core/settings';
import { evmNetworkConfigs, perEvmNetwork, utxoAdapter, utxoNetworkConfigs } from './network-configs';
import type { ChainSettings } from './network-configs';
import { runWorkerProcess } from './worker-process';
import type { RunningWorker, WorkerProcessOptions, WorkerProcessParts } from './worker-process';

export type { RunningWorker } from './worker-process';
export { WORKER_INTERCEPTORS, WORKFLOW_INTERCEPTOR_MODULES, workflowsPath } from './worker-process';

export interface WorkerOptions extends Omit<WorkerProcessOptions, 'settings'> {
  /** Compliance settings (deadline, threshold, deny list) and the simulated adapters' knobs. */
  settings: WorkerSettings;
  /** Decorates the activities (tests delay or observe a step); the real ones run inside. */
  wrapActivities?: (activities: WorkerActivities) => WorkerActivities;
}

/** No deposit seed: deposit addresses are signed for only by the sweeper (worker/sweeper-worker.ts). */
export type WorkerSettings = Pick<Settings, 'travelRuleDeadlineMs' | 'travelRuleThresholdEur' | 'denyListedAddresses'> &
  Partial<
    Pick<Settings, 'webhookRetryBaseMs' | 'webhookAllowLoopback' | 'databaseTimeouts' | 'temporal' | 'evmNetworks' | 'utxoNetworks'>
  > & {
    development: Pick<DevelopmentSettings, 'chainConfirmationDelayMs' | 'bankSettlementDelayMs' | 'bankRejectIbans'>;
  };

/** How often a caught-up UTXO watcher reads the head: blocks come minutes apart (seconds on regtest). */
const UTXO_POLL_INTERVAL_MS = 5_000;

/** Networks with an RPC URL (EVM_RPC_URL_…, UTXO_RPC_URL_…) are sent on for real; every other network is simulated. */
function chainAdapter(
  options: WorkerOptions,
  parts: WorkerProcessParts,
  networks: Partial<Record<EvmNetwork, EvmNetworkConfig>>,
  utxo: UtxoChainAdapter | undefined,
): ChainAdapter {
  const { pool, clock, log, identityGuard } = parts;
  const simulated = new SimulatedChainAdapter({ confirmationDelayMs: options.settings.development.chainConfirmationDelayMs });
  const real: NetworkAdapter[] = [];
  if (Object.keys(networks).length > 0) {
    const chainIds = Object.values(networks).map((config) => config.chainId);
    if (new Set(chainIds).size !== chainIds.length) throw new Error('two EVM networks are configured with one chain id');
    real.push(new EvmChainAdapter({ pool, networks, clock, log, identityGuard }));
  }
  if (utxo) real.push(utxo);
  const sent = [...Object.keys(networks), ...Object.keys(utxoNetworkConfigs(options.settings))];
  if (sent.length > 0) log.info(`withdrawals on ${sent.join(', ')} are sent on chain; other networks are simulated`);
  // Even with no network configured: what another worker signed is never simulated here.
  return new ChainRouter(real, simulated, pool);
}

/** The UTXO watchers: deposits at the withdrawals' confirmations, the head read every few seconds when caught up. */
function utxoDepositWatch(settings: ChainSettings, utxo: UtxoChainAdapter | undefined, metrics: DepositWatchMetrics) {
  if (!utxo) return {};
  const networks = Object.fromEntries(
    Object.entries(utxoNetworkConfigs(settings)).map(([network, config]) => [
      network,
      { confirmations: config.requiredConfirmations, pollIntervalMs: UTXO_POLL_INTERVAL_MS },
    ]),
  );
  // The same adapter answers custody reconciliation: the coins and deposits the node's unspent set holds.
  return { utxoDeposits: { scanner: utxo, networks, metrics }, utxoCustody: utxo };
}

/** Custody's balances of the EVM networks: deposit addresses and hot wallets, read without any deposit key. */
function evmCustody(parts: WorkerProcessParts, networks: Partial<Record<EvmNetwork, EvmNetworkConfig>>) {
  if (Object.keys(networks).length === 0) return {};
  const { pool, clock, log, identityGuard } = parts;
  return { evmCustody: new EvmSweeper({ pool, networks, clock, log, identityGuard }) };
}

/** The deposits' watch, on the withdrawals' node and token. */
function depositWatchConfigs(settings: ChainSettings): Partial<Record<EvmNetwork, EvmDepositWatchConfig>> {
  return perEvmNetwork(settings, (config) => ({
    rpcUrl: config.rpcUrl,
    chainId: config.chainId,
    usdcTokenAddress: config.usdcTokenAddress,
    confirmations: config.depositConfirmations,
    pollIntervalMs: config.depositPollIntervalMs,
  }));
}

/** The general worker (`npm run worker`): every workflow's steps but the sweeps', on TEMPORAL_TASK_QUEUE. */
export async function startWorker(options: WorkerOptions): Promise<RunningWorker> {
  // The same decision as the adapters below: the bank is simulated, a chain network without its node too.
  const { simulated: simulatedRails } = railsOfWorker(options.settings);
  return runWorkerProcess(options, simulatedRails, (parts: WorkerProcessParts) => {
    const { orm, pool, clock, log, identityGuard, metrics } = parts;
    const evmNetworks = evmNetworkConfigs(options.settings);
    const utxo = utxoAdapter(options.settings, { pool, clock, log, identityGuard });
    const activities = createActivities({
      orm,
      pool,
      clock,
      log,
      // The default adapters are simulations; real ones implement the same interfaces.
      chain: chainAdapter(options, parts, evmNetworks, utxo),
      bank: new SimulatedBankAdapter({
        pool,
        settlementDelayMs: options.settings.development.bankSettlementDelayMs,
        rejectCreditorIbans: options.settings.development.bankRejectIbans,
      }),
      compliance: {
        travelRuleThresholdEur: options.settings.travelRuleThresholdEur,
        travelRuleDeadlineMs: options.settings.travelRuleDeadlineMs,
        denyListedAddresses: options.settings.denyListedAddresses,
      },
      webhookDelivery: { retryBaseMs: options.settings.webhookRetryBaseMs },
      webhookTargets: { allowLoopback: options.settings.webhookAllowLoopback ?? false },
      evmDeposits: { networks: depositWatchConfigs(options.settings), metrics: metrics.deposits, identityGuard },
      ...utxoDepositWatch(options.settings, utxo, metrics.deposits),
      ...evmCustody(parts, evmNetworks),
    });
    return (options.wrapActivities ?? ((all: WorkerActivities) => all))(activities);
  });
}
