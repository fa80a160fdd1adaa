/**
 * `npm start`: the whole service on one machine from nothing: embedded Postgres and a Temporal dev server (unless
 * configured), production's roles and migrations, a funded demo partner, the worker and the API; Ctrl-C stops them all.
 */
import { Client } from '@temporalio/client';
import pg from 'pg';
import { findChainIdentity } from '../db/queries/evm-chain-identity.queries';
import { startCodecServer } from '../api/codec/codec-server';
import { localUrl } from '../core/listen-address';
import { AesGcmPayloadCodec } from '../core/payload-codec';
import { generateStrongSecret, secretWeakness } from '../core/secret-strength';
import { temporalConnectionOptions, temporalDataConverter } from '../core/temporal-connection';
import { connectClosable } from '../operations/temporal/closable-connection';
import { withDevelopmentPayloadKey } from './development-payload-key';
import { depositAccountKeys } from './deposit-keys';
import { depositKeysOrigin, rederiveDevelopmentPartners, withDevelopmentDepositSeed } from './development-deposit-seed';
import { startApi } from '../api/server';
import { openOrm } from '../db/orm';
import { ensureDemoPartner } from './demo-partner';
import { startInfrastructure } from '../dev/infrastructure';
import {
  DEVELOPMENT_TOKEN_TRANSFER_GAS_LIMIT,
  developmentChainDir,
  developmentNodePort,
  startDevelopmentChain,
} from '../dev/development-chain';
import type { RunningDevelopmentChain } from '../dev/development-chain';
import { startDevelopmentUtxoChains } from '../dev/development-utxo-chains';
import type { DevelopmentUtxoChains } from '../dev/development-utxo-chains';
import { endPool, openPool } from '../db/pool';
import { depositSigningKeys, parseDepositSeed } from '../core/deposit-seed';
import { gethBuildProblem } from '../dev/geth-build';
import type { Logger } from '../core/logger';
import { EVM_NETWORKS, currenciesOf } from '../core/networks';
import type { Settings } from '../core/settings';
import { exitOnFailure, loadProcessSettings, mainLogger, onShutdownSignal, workerListeners } from './process-support';
import { installTemporalRuntime } from '../worker/temporal-runtime';
import { ensureReconciliationSchedule } from '../worker/reconciliation-schedule';
import { INCOMING_SEPA_EVERY_SECONDS, ensureIncomingSepaSchedule } from '../worker/incoming-sepa-schedule';
import { ensureWebhookDispatcher } from '../worker/webhook-dispatcher';
import { ensureEvmDepositWatchers, watchedNetworks, watchedUtxoNetworks } from '../worker/evm-deposit-watchers';
import { endSweepsOnQueue, ensureSweepers } from '../worker/sweepers';
import { SWEEP_THRESHOLD_DEFAULTS } from '../core/settings/declarations/sweeps';
import type { SweptCurrency } from '../core/settings/declarations/sweeps';
import { startWorker } from '../worker/worker';
import { writeWorkflowBundle } from '../worker/worker-process';
import { startSweeperWorker, sweptNetworks } from '../worker/sweeper-worker';

/** What this process started, stopped in reverse order on Ctrl-C or on a failed start. */
const stops: Array<{ name: string; stop: () => Promise<void> }> = [];
/** One part that does not stop within this is left behind, named, so the rest still stop. */
const STOP_PART_TIMEOUT_MS = 15_000;

async function stopAll(): Promise<void> {
  for (const { name, stop } of stops.splice(0).reverse()) {
    let timer: NodeJS.Timeout | undefined;
    const gaveUp = new Promise<string>((resolve) => {
      timer = setTimeout(
        () => resolve(`${name} did not confirm its stop within ${STOP_PART_TIMEOUT_MS} ms (a Ctrl-C reaches it directly too): moving on`),
        STOP_PART_TIMEOUT_MS,
      );
    });
    const outcome = await Promise.race([
      stop().then(
        () => undefined,
        (error: unknown) => `${name}: ${String(error)}`,
      ),
      gaveUp,
    ]);
    clearTimeout(timer);
    if (outcome !== undefined) process.stderr.write(`${outcome}\n`);
  }
}

async function main(): Promise<void> {
  // A payload key and a deposit seed kept in the data folder, unless set in the environment.
  const loaded = withDevelopmentPayloadKey(loadProcessSettings(), { create: true });
  const settings = withDevelopmentDepositSeed(loaded, { create: true });
  const depositKeys = depositAccountKeys(settings);
  // A person watches this terminal: pretty lines (production entries write JSON).
  const log = mainLogger('start', settings, 'pretty');
  // In seconds, before anything starts: the local chain needs geth, built with Go on first use.
  const gethProblem = usesLocalChain(settings) ? gethBuildProblem(settings.development.gethPath) : undefined;
  if (gethProblem !== undefined) throw new Error(gethProblem);
  const { host, listenHosts, temporalUiPort } = settings.development;
  const observability = settings.workerObservability;
  const workerListening = workerListeners(observability, listenHosts.worker);
  installTemporalRuntime({ log, metricsBindAddress: workerListening.sdkMetricsBindAddress });
  onShutdownSignal(log, stopAll);
  // Operators read decrypted payloads in the Web UI through the codec endpoint (its token: CODEC_ENDPOINT_TOKEN, or a new one per start).
  const codecToken = settings.codecEndpoint.token ?? generateStrongSecret();
  const codecTokenWeakness = secretWeakness(codecToken);
  // Development accepts the token it is given; `npm run codec` would not.
  if (codecTokenWeakness) log.warn(`CODEC_ENDPOINT_TOKEN ${codecTokenWeakness}: npm run codec (production) refuses it`);
  const uiOrigins = [
    ...new Set([localUrl(host, temporalUiPort), `http://127.0.0.1:${temporalUiPort}`, `http://localhost:${temporalUiPort}`]),
  ];
  const codec = await startCodecServer({
    codec: new AesGcmPayloadCodec(settings.temporal.payloadKeys!, { refused: 'mark' }),
    token: codecToken,
    allowedOrigins: settings.codecEndpoint.allowedOrigins,
    // The dev UI is served on this machine's loopback unless HOST says otherwise, and hands its endpoint to every browser.
    trustedOrigins: [...uiOrigins, ...settings.codecEndpoint.trustedOrigins],
    allowedHosts: settings.codecEndpoint.allowedHosts,
    port: settings.codecEndpoint.port,
    host: listenHosts.codec,
    log,
  });
  stops.push({ name: 'the codec endpoint', stop: () => codec.stop() });
  const infrastructure = await startInfrastructure(settings, { ui: true, uiCodecEndpoint: codec.endpointUrl, log });
  stops.push({ name: 'Postgres and Temporal', stop: () => infrastructure.stop() });

  const utxoChains = await withLocalUtxoNodes(settings, infrastructure.databaseUrl, log);
  const orm = await openOrm(infrastructure.databaseUrl, 2);
  // After the regtest chains set network_config: their partners' addresses are regtest ones.
  await rederiveDevelopmentPartners(orm, depositKeys, log);
  const demo = await ensureDemoPartner(orm, settings.development.dataDir, depositKeys);
  await orm.close(true);

  const { connection, close: closeConnection } = await connectClosable(
    temporalConnectionOptions(infrastructure.temporalAddress, settings.temporal),
  );
  const client = new Client({ connection, namespace: settings.temporalNamespace, dataConverter: temporalDataConverter(settings.temporal) });
  await ensureReconciliationSchedule(client, settings.temporalTaskQueue, log);
  const incomingSepaEverySeconds = settings.incomingSepaEverySeconds ?? INCOMING_SEPA_EVERY_SECONDS.development;
  await ensureIncomingSepaSchedule(client, settings.temporalTaskQueue, incomingSepaEverySeconds, log);
  await ensureWebhookDispatcher(client, settings.temporalTaskQueue, log);

  const chainSettings = await withLocalEvmNode(settings, log);
  const chainRefusals = await recordedChainRefusals(infrastructure.databaseUrl, chainSettings.local);
  await ensureEvmDepositWatchers(
    client,
    settings.temporalTaskQueue,
    [...watchedNetworks(chainSettings.settings.evmNetworks), ...watchedUtxoNetworks({ ...utxoChains.settings, ...settings.utxoNetworks })],
    log,
  );
  const chains = { ...chainSettings.settings, utxoNetworks: { ...utxoChains.settings, ...settings.utxoNetworks } };
  // A developer's test deposit is above the development sweep thresholds.
  const sweeperSettings = { ...settings, ...chains, sweeps: withDevelopmentSweepThresholds(settings.sweeps) };
  const depositSigning = depositSigningKeys(settings.depositKeys.seeds);
  await endSweepsOnQueue(client, settings.temporalTaskQueue, log);
  await ensureSweepers(client, settings.temporalSweeperTaskQueue, sweptNetworks(chains, depositSigning).swept, log);
  await closeConnection();
  // One bundle of the workflow code for both workers of this process.
  const workflowBundlePath = await writeWorkflowBundle(settings.development.dataDir);
  // Simulates whatever has no local node without asking for SIMULATED_RAILS, and says which in its banner.
  const worker = await startWorker({
    databaseUrl: infrastructure.databaseUrl,
    temporalAddress: infrastructure.temporalAddress,
    namespace: settings.temporalNamespace,
    taskQueue: settings.temporalTaskQueue,
    workflowBundlePath,
    log,
    // Webhooks may go to a receiver on this machine.
    settings: { ...chains, webhookAllowLoopback: true },
    http: workerListening.http,
  });
  stops.push({ name: 'the worker', stop: () => worker.stop() });
  // In this process for development; production runs `npm run sweeper` apart, the only process given the seeds.
  const sweeper = await startSweeperWorker({
    databaseUrl: infrastructure.databaseUrl,
    temporalAddress: infrastructure.temporalAddress,
    namespace: settings.temporalNamespace,
    taskQueue: settings.temporalSweeperTaskQueue,
    workflowBundlePath,
    log,
    settings: sweeperSettings,
    keys: depositSigning,
  });
  stops.push({ name: 'the sweeper', stop: () => sweeper.stop() });
  const api = await startApi({
    ...settings,
    databaseUrl: infrastructure.databaseUrl,
    temporalAddress: infrastructure.temporalAddress,
    host: listenHosts.api,
    // Its own metrics port: the worker above holds 9464 and 9465.
    apiMetrics: settings.development.apiMetrics,
    log,
    simulatedRails: worker.simulatedRails,
  });
  stops.push({ name: 'the API', stop: () => api.stop() });

  process.stdout.write(
    [
      '',
      `API:              ${api.url}`,
      `Temporal Web UI:  ${infrastructure.temporalUiUrl ?? '(configured Temporal: see its own UI)'}`,
      `Database:         ${databaseRole(infrastructure.databaseUrl)}: the API, the worker and the sweeper connect as it, DML only; \`npm run ops\` as payments_ops (no ledger table, no ledger function of its own); payments_migrator owns the schema`,
      `Metrics:          ${api.metricsUrl ? `${api.metricsUrl}/metrics (API)` : '(API: off)'}${worker.httpUrl ? `, ${worker.httpUrl}/metrics (worker)` : ''}${observability.sdkMetricsPort ? `, ${localUrl(listenHosts.worker, observability.sdkMetricsPort)}/metrics (Temporal SDK)` : ''}`,
      `Chain:            ${chainSettings.description}`,
      ...chainSettings.lines.map((line) => `                  ${line}`),
      ...chainRefusals.map((refusal) => `                  REFUSED: ${refusal}`),
      ...utxoChains.lines.map((line) => `                  ${line}`),
      '                  dogecoin: simulated: no dogecoin node is to be had here (no Go module, no Debian package)',
      `Deposit keys:     ${depositKeysOrigin(loaded)}`,
      `Simulated rails:  ${worker.simulatedRails.join(', ') || 'none'} (no bank or chain moves their money; production needs SIMULATED_RAILS to allow this)`,
      `Demo API key:     ${demo.apiKey}`,
      `Demo partner:     ${demo.partnerId} (the --partner of \`npm run ops\`: webhook set, deposit, bank assign, …)`,
      '',
      `Try: curl -H "Authorization: Bearer ${demo.apiKey}" ${api.url}/v1/partner/balances`,
      'Ctrl-C stops everything.',
      '',
    ].join('\n'),
  );
}

function withDevelopmentSweepThresholds(sweeps: Settings['sweeps']): Settings['sweeps'] {
  const { thresholds } = sweeps;
  const defaults = SWEEP_THRESHOLD_DEFAULTS.development;
  const currencies = Object.keys(defaults) as SweptCurrency[];
  const withDefaults = Object.fromEntries(currencies.map((currency) => [currency, thresholds[currency] ?? defaults[currency]]));
  return { ...sweeps, thresholds: withDefaults as Settings['sweeps']['thresholds'] };
}

/** `payments_app on 127.0.0.1:54320/partner_payments`: who the service connects as, without the password. */
function databaseRole(databaseUrl: string): string {
  const url = new URL(databaseUrl);
  return `${decodeURIComponent(url.username)} on ${url.host}${url.pathname}`;
}

/** A local chain that is not the one recorded for its network (its folder was deleted): nothing moves on it until adopted. */
async function recordedChainRefusals(databaseUrl: string, local: readonly RunningDevelopmentChain[]): Promise<string[]> {
  const pool = new pg.Pool({ connectionString: databaseUrl, max: 1 });
  try {
    const refusals: string[] = [];
    for (const chain of local) {
      const recorded = await findChainIdentity(pool, chain.network);
      if (!recorded || (recorded.chainId === chain.chainId && recorded.genesisHash === chain.genesisHash)) continue;
      refusals.push(
        `the database recorded another ${chain.network} chain (genesis ${recorded.genesisHash}): nothing is sent, settled, credited or swept on this one ` +
          `until an operator adopts it (npm run ops -- chain adopt --network ${chain.network} --reason TEXT; docs/operators.md, "The chain's identity")`,
      );
    }
    return refusals;
  } finally {
    await pool.end();
  }
}

/**
 * CHAIN=local-evm (the default): a regtest chain per UTXO network with a node on this machine and no UTXO_RPC_URL_<NETWORK>
 * (dev/development-utxo-chains.ts), its hot wallet from the development seed.
 */
async function withLocalUtxoNodes(settings: Settings, databaseUrl: string, log: Logger): Promise<DevelopmentUtxoChains> {
  // The regtest hot wallets derive from the development seed (every family's under npm start).
  const seed = settings.depositKeys.seeds.btc;
  if (settings.development.chain === 'simulated')
    return { nodes: [], settings: {}, lines: ['bitcoin, litecoin: simulated (CHAIN=simulated)'] };
  if (seed === undefined)
    return { nodes: [], settings: {}, lines: ['bitcoin, litecoin: simulated (no development deposit seed: BTC_DEPOSIT_SEED)'] };
  const pool = openPool({ connectionString: databaseUrl, max: 2 });
  try {
    const { dataDir, host, utxoNodeBitcoinPort, utxoNodeLitecoinPort, btcdPath, litecoindPath } = settings.development;
    const chains = await startDevelopmentUtxoChains({
      dataDir,
      host,
      ports: { bitcoin: utxoNodeBitcoinPort, litecoin: utxoNodeLitecoinPort },
      binaries: { bitcoin: btcdPath, litecoin: litecoindPath },
      seed: parseDepositSeed(seed),
      pool,
      log,
      onStarted: (node) => stops.push({ name: `the local ${node.network} chain`, stop: () => node.stop() }),
    });
    // A configured node wins over the local one.
    for (const network of Object.keys(settings.utxoNetworks)) delete chains.settings[network as keyof typeof chains.settings];
    return chains;
  } finally {
    await endPool(pool);
  }
}

function usesLocalChain(settings: Settings): boolean {
  return Object.keys(settings.evmNetworks).length === 0 && settings.development.chain === 'local-evm';
}

/**
 * CHAIN=local-evm (the default) with no EVM_RPC_URL_<NETWORK>: a development chain per EVM network (dev/development-chain.ts,
 * kept in DATA_DIR, so its wallets and nonces match Postgres across restarts) takes its withdrawals for real, and its
 * deposits are watched and swept.
 */
async function withLocalEvmNode(
  settings: Settings,
  log: Logger,
): Promise<{ settings: Settings; description: string; lines: string[]; local: RunningDevelopmentChain[] }> {
  const configured = Object.keys(settings.evmNetworks);
  if (configured.length > 0)
    return {
      settings,
      description: `${configured.join(', ')} on the configured EVM nodes; other networks simulated`,
      lines: [],
      local: [],
    };
  if (settings.development.chain === 'simulated') return { settings, description: 'simulated (CHAIN=simulated)', lines: [], local: [] };
  const { dataDir, host, gethPath } = settings.development;
  const local: RunningDevelopmentChain[] = [];
  for (const network of EVM_NETWORKS) {
    const port = developmentNodePort(settings, network);
    const node = await startDevelopmentChain({ network, dataDir, port, host, log, ...(gethPath ? { gethPath } : {}) });
    stops.push({ name: `the local ${network} chain`, stop: () => node.stop() });
    local.push(node);
  }
  const evmNetworks = Object.fromEntries(
    local.map((node) => [
      node.network,
      {
        rpcUrl: node.rpcUrl,
        chainId: node.chainId,
        hotWalletPrivateKey: node.hotWalletPrivateKey,
        requiredConfirmations: 1,
        replaceAfterMs: 60_000,
        usdcTokenAddress: node.usdcAddress,
        maxFeePerGasCapWei: 500_000_000_000n,
        tokenTransferGasLimit: DEVELOPMENT_TOKEN_TRANSFER_GAS_LIMIT,
        // Deposits wait for three blocks; the chain mines one a second besides one per transaction.
        depositConfirmations: 3,
        depositPollIntervalMs: 1_000,
      },
    ]),
  ) as Settings['evmNetworks'];
  return {
    local,
    settings: { ...settings, evmNetworks },
    description: `${EVM_NETWORKS.map((network) => `${network} (${currenciesOf(network).join(', ')})`).join(' and ')} on local development chains (geth), kept in ${dataDir}; test funds: npm run ops -- chain fund; other networks simulated`,
    lines: local.map(
      (node) =>
        `${node.network}: chain id ${node.chainId} at ${node.rpcUrl}, ${node.created ? 'new' : 'resumed'}, in ${developmentChainDir(dataDir, node.network)}; hot wallet ${node.hotWalletAddress}, test USDC ${node.usdcAddress}`,
    ),
  };
}

main().catch(exitOnFailure([], stopAll));
