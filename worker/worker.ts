import fs from 'node:fs';
import path from 'node:path';
import { NativeConnection, Worker } from '@temporalio/worker';
import type { WorkerInterceptors } from '@temporalio/worker';
import type pg from 'pg';
import { createActivities } from '../activities';
import { DomainErrorInterceptor } from '../activities/domain-error.interceptor';
import { PayloadGuardInterceptor } from '../activities/payload-guard.interceptor';
import { requestIdInterceptors } from '../activities/request-id.interceptor';
import type { Activities } from '../activities';
import type { Clock } from '../activities/dependencies';
import { SimulatedBankAdapter } from '../activities/adapters/bank/simulated-bank.adapter';
import { SimulatedChainAdapter } from '../activities/adapters/chain/simulated-chain.adapter';
import { ChainRouter } from '../activities/adapters/chain/chain-router';
import type { NetworkAdapter } from '../activities/adapters/chain/chain-router';
import type { ChainAdapter } from '../activities/adapters/chain/chain-adapter';
import { EvmChainAdapter } from '../activities/adapters/chain/evm/evm-chain.adapter';
import { EvmChainIdentityGuard } from '../activities/adapters/chain/evm/evm-chain-identity';
import { EvmSweeper } from '../activities/adapters/chain/evm/evm-sweeper';
import type { EvmNetworkConfig } from '../activities/adapters/chain/evm/evm-network-config';
import type { EvmNetwork, UtxoNetwork } from '../core/networks';
import { UtxoChainAdapter } from '../activities/adapters/chain/utxo/utxo-chain.adapter';
import type { UtxoNetworkConfig } from '../activities/adapters/chain/utxo/utxo-chain.adapter';
import { UtxoDepositSweeper } from '../activities/adapters/chain/utxo/utxo-deposit-sweeper';
import type { DepositWatchMetrics, EvmDepositWatchConfig } from '../activities/evm-deposit.activities';
import { systemClock } from '../core/clock';
import { parseDepositSeed } from '../core/deposit-seed';
import { SWEEP_THRESHOLD_DEFAULTS } from '../core/settings/declarations/sweeps';
import { railsOfWorker } from '../core/rails';
import type { Rail } from '../core/rails';
import type { Logger } from '../core/logger';
import { connectPatiently } from '../core/patient-connect';
import type { DevelopmentSettings, EvmNetworkSettings, ListenAddress, Settings } from '../core/settings';
import { DEFAULT_DATABASE_TIMEOUTS } from '../db/connection-settings';
import { openOrm } from '../db/orm';
import { sqlPoolOf } from '../db/orm-sql-pool';
import { temporalConnectionOptions, temporalDataConverter } from '../core/temporal-connection';
import { startWorkerHttpServer, workerReadiness } from './health-server';
import type { WorkerHttpServer } from './health-server';
import { createWorkerMetrics } from './metrics';

export interface WorkerOptions {
  databaseUrl: string;
  temporalAddress: string;
  namespace: string;
  taskQueue: string;
  log: Logger;
  /** Compliance settings (deadline, threshold, deny list) and the simulated adapters' knobs. */
  settings: WorkerSettings;
  clock?: Clock;
  /** A prebuilt workflow bundle (tests build one per run); otherwise workflows are bundled at start. */
  workflowBundlePath?: string;
  /** Decorates the activities (tests delay or observe a step); the real ones run inside. */
  wrapActivities?: (activities: Activities) => Activities;
  /** The worker's HTTP server (/health/live, /health/ready, /metrics of its own) on this address (port 0: any free one); absent, none. */
  http?: ListenAddress;
}

export type WorkerSettings = Pick<Settings, 'travelRuleDeadlineMs' | 'travelRuleThresholdEur' | 'denyListedAddresses'> &
  Partial<
    Pick<
      Settings,
      'webhookRetryBaseMs' | 'webhookAllowLoopback' | 'databaseTimeouts' | 'temporal' | 'evmNetworks' | 'utxoNetworks' | 'sweeps'
    >
  > & {
    /** EVM_DEPOSIT_SEED: with it (and an EVM network) the worker sweeps deposit addresses. */
    depositKeys?: Pick<Settings['depositKeys'], 'evmSeed'>;
    development: Pick<DevelopmentSettings, 'chainConfirmationDelayMs' | 'bankSettlementDelayMs' | 'bankRejectIbans'>;
  };

export interface RunningWorker {
  /** Where its HTTP server listens, when it has one (options.http). */
  httpUrl?: string;
  /** The rails this worker simulates (no bank or chain moves their money): shown by /health/ready and payments_rail_simulated. */
  simulatedRails: readonly Rail[];
  /** Resolves when the worker has stopped polling and finished its in-flight tasks. */
  stop(): Promise<void>;
}

/**
 * Domain errors become typed, non-retryable failures in one place (local activities too); the request id goes onto
 * the log context first, so their lines carry it. Shared with the workflow tests' worker.
 */
export const WORKER_INTERCEPTORS: WorkerInterceptors = {
  activity: [() => ({ inbound: new PayloadGuardInterceptor() }), requestIdInterceptors, () => ({ inbound: new DomainErrorInterceptor() })],
};

/** Bundled with the workflow code: whoever prebuilds a bundle (tests) must pass them to bundleWorkflowCode too. */
export const WORKFLOW_INTERCEPTOR_MODULES: readonly string[] = [
  // First: an unreadable payload is stopped before anything else looks at it.
  sourceFile(path.join('workflows', 'payload-guard.interceptor')),
  sourceFile(path.join('workflows', 'request-id.interceptor')),
];

/** The workflows folder, whether this runs from TypeScript sources (tsx, jest) or compiled output. */
export function workflowsPath(): string {
  return sourceFile(path.join('workflows', 'index'));
}

function sourceFile(pathWithoutExtension: string): string {
  const candidates = ['.ts', '.js'].map((extension) => path.join(__dirname, '..', `${pathWithoutExtension}${extension}`));
  const found = candidates.find((candidate) => fs.existsSync(candidate));
  if (!found) throw new Error(`no ${pathWithoutExtension} in ${candidates.join(' or ')}`);
  return found;
}

/** Each EVM network with an RPC URL, as `of` gives it to its users. */
function perEvmNetwork<T>(options: WorkerOptions, of: (config: EvmNetworkSettings) => T): Partial<Record<EvmNetwork, T>> {
  const configured = Object.entries(options.settings.evmNetworks ?? {});
  return Object.fromEntries(configured.flatMap(([network, config]) => (config ? [[network, of(config)]] : [])));
}

/** As the adapters take them: withdrawals, deposits' sweeps and custody share them. */
function evmNetworkConfigs(options: WorkerOptions): Partial<Record<EvmNetwork, EvmNetworkConfig>> {
  return perEvmNetwork(options, (config) => ({
    rpcUrl: config.rpcUrl,
    chainId: config.chainId,
    hotWalletPrivateKey: config.hotWalletPrivateKey as `0x${string}`,
    requiredConfirmations: config.requiredConfirmations,
    replaceAfterMs: config.replaceAfterMs,
    ...(config.usdcTokenAddress ? { usdcTokenAddress: config.usdcTokenAddress as `0x${string}` } : {}),
    maxFeePerGasCapWei: config.maxFeePerGasCapWei,
    tokenTransferGasLimit: BigInt(config.tokenTransferGasLimit),
  }));
}

/** How often a caught-up UTXO watcher reads the head: blocks come minutes apart (seconds on regtest). */
const UTXO_POLL_INTERVAL_MS = 5_000;

/** Each UTXO network with an RPC URL, as its adapter takes it. */
function utxoNetworkConfigs(options: WorkerOptions): Partial<Record<UtxoNetwork, UtxoNetworkConfig>> {
  const configured = Object.entries(options.settings.utxoNetworks ?? {});
  return Object.fromEntries(configured.flatMap(([network, config]) => (config ? [[network, config]] : [])));
}

/** The UTXO networks with an RPC URL: one adapter sends their withdrawals and reads their blocks (coins, deposits). */
function utxoAdapter(options: WorkerOptions, pool: pg.Pool, identityGuard: EvmChainIdentityGuard): UtxoChainAdapter | undefined {
  const networks = utxoNetworkConfigs(options);
  if (Object.keys(networks).length === 0) return undefined;
  return new UtxoChainAdapter({ pool, networks, ...(options.clock ? { clock: options.clock } : {}), log: options.log, identityGuard });
}

/** Networks with an RPC URL (EVM_RPC_URL_…, UTXO_RPC_URL_…) are sent on for real; every other network is simulated. */
function chainAdapter(
  options: WorkerOptions,
  pool: pg.Pool,
  networks: Partial<Record<EvmNetwork, EvmNetworkConfig>>,
  identityGuard: EvmChainIdentityGuard,
  utxo: UtxoChainAdapter | undefined,
): ChainAdapter {
  const simulated = new SimulatedChainAdapter({ confirmationDelayMs: options.settings.development.chainConfirmationDelayMs });
  const real: NetworkAdapter[] = [];
  if (Object.keys(networks).length > 0) {
    const chainIds = Object.values(networks).map((config) => config.chainId);
    if (new Set(chainIds).size !== chainIds.length) throw new Error('two EVM networks are configured with one chain id');
    real.push(new EvmChainAdapter({ pool, networks, ...(options.clock ? { clock: options.clock } : {}), log: options.log, identityGuard }));
  }
  if (utxo) real.push(utxo);
  const sent = [...Object.keys(networks), ...Object.keys(utxoNetworkConfigs(options))];
  if (sent.length > 0) options.log.info(`withdrawals on ${sent.join(', ')} are sent on chain; other networks are simulated`);
  // Even with no network configured: what another worker signed is never simulated here.
  return new ChainRouter(real, simulated, pool);
}

/** The UTXO watchers: deposits at the withdrawals' confirmations, the head read every few seconds when caught up. */
function utxoDepositWatch(options: WorkerOptions, utxo: UtxoChainAdapter | undefined, metrics: DepositWatchMetrics) {
  if (!utxo) return {};
  const networks = Object.fromEntries(
    Object.entries(utxoNetworkConfigs(options)).map(([network, config]) => [
      network,
      { confirmations: config.requiredConfirmations, pollIntervalMs: UTXO_POLL_INTERVAL_MS },
    ]),
  );
  // The same adapter answers custody reconciliation: the coins and deposits the node's unspent set holds.
  return { utxoDeposits: { scanner: utxo, networks, metrics }, utxoCustody: utxo };
}

/** With EVM_DEPOSIT_SEED (every family's deposit keys derive from it), the UTXO networks' credited deposits are swept. */
function utxoSweeping(
  options: WorkerOptions,
  pool: pg.Pool,
  utxo: UtxoChainAdapter | undefined,
): Pick<Parameters<typeof createActivities>[0], 'utxoSweeps'> {
  const seedText = options.settings.depositKeys?.evmSeed;
  if (!utxo || !seedText) return {};
  const configured = options.settings.sweeps?.thresholds;
  const threshold = (currency: 'btc' | 'ltc' | 'doge') => configured?.[currency] ?? SWEEP_THRESHOLD_DEFAULTS.deployment[currency];
  const sweeper = new UtxoDepositSweeper({
    pool,
    adapter: utxo,
    seed: parseDepositSeed(seedText),
    thresholds: { bitcoin: threshold('btc'), litecoin: threshold('ltc'), dogecoin: threshold('doge') },
    clock: options.clock ?? systemClock,
    log: options.log,
  });
  return { utxoSweeps: { sweeper, pollIntervalMs: options.settings.sweeps?.pollIntervalMs ?? 5_000 } };
}

/** The EVM networks' balances for custody reconciliation and, with EVM_DEPOSIT_SEED, the sweeps of deposit addresses. */
function evmSweeping(
  options: WorkerOptions,
  pool: pg.Pool,
  networks: Partial<Record<EvmNetwork, EvmNetworkConfig>>,
  identityGuard: EvmChainIdentityGuard,
): Pick<Parameters<typeof createActivities>[0], 'evmSweeps' | 'evmCustody'> {
  if (Object.keys(networks).length === 0) return {};
  const seedText = options.settings.depositKeys?.evmSeed;
  const sweeper = new EvmSweeper({
    pool,
    networks,
    ...(seedText ? { seed: parseDepositSeed(seedText) } : {}),
    ...(options.clock ? { clock: options.clock } : {}),
    log: options.log,
    identityGuard,
  });
  if (!sweeper.canSign()) {
    options.log.warn('no EVM_DEPOSIT_SEED: deposits are credited but not swept to the hot wallet by this worker');
    return { evmCustody: sweeper };
  }
  const configured = options.settings.sweeps?.thresholds;
  const defaults = SWEEP_THRESHOLD_DEFAULTS.deployment;
  return {
    evmCustody: sweeper,
    evmSweeps: {
      sweeper,
      thresholds: { eth: configured?.eth ?? defaults.eth, pol: configured?.pol ?? defaults.pol, usdc: configured?.usdc ?? defaults.usdc },
      pollIntervalMs: options.settings.sweeps?.pollIntervalMs ?? 5_000,
    },
  };
}

/** The deposits' watch, on the withdrawals' node and token. */
function depositWatchConfigs(options: WorkerOptions): Partial<Record<EvmNetwork, EvmDepositWatchConfig>> {
  return perEvmNetwork(options, (config) => ({
    rpcUrl: config.rpcUrl,
    chainId: config.chainId,
    usdcTokenAddress: config.usdcTokenAddress,
    confirmations: config.depositConfirmations,
    pollIntervalMs: config.depositPollIntervalMs,
  }));
}

export async function startWorker(options: WorkerOptions): Promise<RunningWorker> {
  const timeouts = options.settings.databaseTimeouts ?? DEFAULT_DATABASE_TIMEOUTS;
  const temporalAccess = options.settings.temporal;
  if (!temporalAccess?.payloadKeys)
    throw new Error('the worker needs PAYLOAD_ENCRYPTION_KEYS: Temporal payloads are never read or written in clear');
  // One pool for the activities: the ORM's, which their plain SQL runs on too.
  const orm = await openOrm(options.databaseUrl, 15, timeouts);
  const pool = sqlPoolOf(orm);
  const connection = await connectPatiently(
    'worker',
    () => NativeConnection.connect(temporalConnectionOptions(options.temporalAddress, temporalAccess)),
    options.log,
  );
  // The same decision as the adapters below: the bank is simulated, a chain network without its node too.
  const { simulated: simulatedRails } = railsOfWorker(options.settings);
  const metrics = createWorkerMetrics({ simulatedRails });
  // One for the withdrawals, the sweeps (and custody) and the deposit watcher: /health/ready says what any last found.
  const identityGuard = new EvmChainIdentityGuard({ pool, clock: options.clock ?? systemClock, log: options.log });
  // Metrics outermost: they count each attempt's final outcome, after the domain-error mapping.
  const interceptors: WorkerInterceptors = { activity: [metrics.interceptor, ...(WORKER_INTERCEPTORS.activity ?? [])] };
  const evmNetworks = evmNetworkConfigs(options);
  const utxo = utxoAdapter(options, pool, identityGuard);
  const worker = await Worker.create({
    connection,
    // Never in clear; what is not ours is marked, not thrown on, so it cannot jam a workflow (core/unreadable-payload.ts).
    dataConverter: temporalDataConverter(temporalAccess, {
      refused: 'mark',
      onRefused: (reason) => {
        metrics.payloadRefused();
        options.log.warn(`refused a Temporal payload: ${reason}`);
      },
    }),
    namespace: options.namespace,
    taskQueue: options.taskQueue,
    ...(options.workflowBundlePath
      ? { workflowBundle: { codePath: options.workflowBundlePath }, interceptors }
      : { workflowsPath: workflowsPath(), interceptors: { ...interceptors, workflowModules: [...WORKFLOW_INTERCEPTOR_MODULES] } }),
    activities: (options.wrapActivities ?? ((activities: Activities) => activities))(
      createActivities({
        orm,
        pool,
        clock: options.clock ?? systemClock,
        log: options.log,
        // The default adapters are simulations; real ones implement the same interfaces.
        chain: chainAdapter(options, pool, evmNetworks, identityGuard, utxo),
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
        evmDeposits: { networks: depositWatchConfigs(options), metrics: metrics.deposits, identityGuard },
        ...utxoDepositWatch(options, utxo, metrics.deposits),
        ...evmSweeping(options, pool, evmNetworks, identityGuard),
        ...utxoSweeping(options, pool, utxo),
      }),
    ),
  });
  const running = worker.run();
  options.log.info(`worker polling task queue ${options.taskQueue}`);
  metrics.observe(() => worker.getStatus());
  let httpServer: WorkerHttpServer | undefined;
  const stop = async () => {
    try {
      if (worker.getState() === 'RUNNING') worker.shutdown();
      await running;
      await connection.close();
    } finally {
      // Last: readiness answers 503 while the worker drains.
      await httpServer?.stop();
      await orm.close(true);
    }
  };
  if (options.http !== undefined) {
    try {
      httpServer = await startWorkerHttpServer({
        ...options.http,
        registry: metrics.registry,
        readiness: () => workerReadiness(() => worker.getStatus(), pool, simulatedRails, identityGuard),
        log: options.log,
      });
    } catch (error) {
      await stop();
      throw error;
    }
  }
  return { ...(httpServer ? { httpUrl: httpServer.url } : {}), simulatedRails, stop };
}
