import type { ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import readline from 'node:readline';
import pg from 'pg';
import { createTestClient, http } from 'viem';
import { LOOPBACK } from '../../../core/listen-address';
import { createLogger } from '../../../core/logger';
import { newPayloadKeyEntry } from '../../../core/payload-codec';
import { freePort } from '../../../dev/free-port';
import { prepareDatabase } from '../../../db/database-setup';
import { embeddedDatabaseUrls } from '../../../dev/embedded-postgres';
import { localChain, startEvmNode } from '../../../dev/evm-node';
import { startFundedRegtestChain } from '../../../dev/funded-regtest-chain';
import type { FundedRegtestChain } from '../../../dev/funded-regtest-chain';
import { findTemporalCli } from '../../../dev/temporal-dev-server';
import { loadSettings } from '../../../core/settings';
import type { RunningEvmNode } from '../../../dev/evm-node';
import { killProcessGroup, killRecordedProcesses, spawnTsx } from '../../support/processes';
import { RAILS } from '../../../core/rails';
import { StackProcess } from './stack-process';
import { WITHDRAWAL_NETWORKS } from './fault-points';
import type { WithdrawalNetwork } from './fault-points';
import type { ProcessKind } from './stack-process';

export { StackProcess };
export type { ProcessKind };

/**
 * The fault campaign's own stack, every piece a process (group) it can SIGKILL and start again:
 * an embedded Postgres and a Temporal dev server (test/faults/support/infrastructure.main.ts),
 * each on a free port kept across restarts with its files in a temporary folder (a restart
 * recovers the same data), and any number of API processes (main/api.main.ts) and worker
 * processes (main/worker.main.ts, or test/faults/support/fault-worker.main.ts with a fault), each
 * on its own port, logging to a file of the folder. `stop()` ends every one and removes the folder.
 *
 * Money also comes in: a Hardhat node (dev/evm-node.ts, in this process's keeping: it dies with
 * it) stands for ethereum, whose deposit watcher the workers run (eth and usdc to partners'
 * addresses). Money goes out on the chains the spec added: bitcoin on btcd and litecoin on
 * litecoind in regtest (dev/funded-regtest-chain.ts), and polygon on a second Hardhat node (no
 * reorganisations there), each mining a block a second, with funded hot wallets the workers pay
 * btc, ltc and pol withdrawals from; every other network stays simulated. The incoming-sepa Schedule reads the simulated bank every
 * INCOMING_SEPA_EVERY_SECONDS.
 */

/** The simulated chain and bank answer within a second, so operations settle while the fault is still fresh. */
const FAST_SETTINGS = {
  CHAIN_CONFIRMATION_DELAY_MS: '300',
  BANK_SETTLEMENT_DELAY_MS: '300',
  // No travel-rule wait: every withdrawal goes straight to the chain.
  TRAVEL_RULE_THRESHOLD_EUR: '1000000000',
  // Rate limiting is per key and partner and API process: off, the load is the point.
  RATE_LIMIT_PER_SECOND: '0',
  RATE_LIMIT_WRITES_PER_SECOND: '0',
  // A POST that waits longer answers 503 and the caller retries with the same key.
  OPERATION_RESPONSE_TIMEOUT_MS: '15000',
  LOG_LEVEL: 'info',
  WORKER_METRICS_PORT: '0',
  // Two APIs on one machine: their internal /metrics listeners would take the same port.
  API_METRICS_PORT: '0',
  // The bank's notifications are read every 2 s: a credit is in well before a phase settles.
  INCOMING_SEPA_EVERY_SECONDS: '2',
  // A webhook receiver in a test listens on 127.0.0.1.
  WEBHOOK_ALLOW_LOOPBACK: 'true',
} as const;

const READY_TIMEOUT_MS = 120_000;
/** Deposits are credited this many blocks deep (npm start's, as on a quiet development chain). */
export const DEPOSIT_CONFIRMATIONS = 3;
/** btcd and polygon's node mine a block this often; a withdrawal settles at its first confirmation. */
const BLOCK_INTERVAL_MS = 1_000;
/** npm start's polygon chain id. */
const POLYGON_CHAIN_ID = 31338;
/** Each UTXO hot wallet's coins of one: withdrawals a fault holds keep theirs reserved, the rest take the others and the change. */
const UTXO_COINS = 60;

export interface FaultStackOptions {
  apis: number;
  workers: number;
  /** Settings over the campaign's own (FAST_SETTINGS) for every API and worker. */
  settings?: Record<string, string>;
  /** Once Postgres (migrated) and Temporal serve, before any API or worker starts (the chaos run's proxies). */
  prepare?: (stack: FaultStack) => Promise<void>;
  /** What one API or worker process gets on top of env(), asked at each of its starts (its own proxied addresses). */
  processEnv?: (name: string, kind: 'api' | 'worker') => Record<string, string>;
  /** Workers from the prebuilt workflow bundle (the fault worker without a fault): a restart takes seconds, not a webpack build. */
  prebuiltWorkers?: boolean;
  /** Each API serves its /metrics on a port of its own (soak sampling). */
  apiMetrics?: boolean;
  /** The stack's folder, made by the caller (who can then clean up even while start() runs); a new temporary one otherwise. */
  dir?: string;
  /** The networks withdrawals are paid on, each on a node of its own (default: all of WITHDRAWAL_NETWORKS); the others simulated. */
  payoutNetworks?: readonly WithdrawalNetwork[];
}

export class FaultStack {
  readonly postgres: StackProcess;
  readonly temporal: StackProcess;
  readonly apis: StackProcess[] = [];
  readonly apiUrls: string[] = [];
  readonly workers: StackProcess[] = [];
  /** Where fault workers leave their markers. */
  readonly markerDir: string;
  readonly bundlePath: string;
  /** payments_app, as the APIs and workers connect (production's roles: `npm run migrate`'s step in start()). */
  readonly databaseUrl: string;
  readonly temporalAddress: string;
  readonly taskQueue = 'partner-payments-faults';
  readonly payloadKeys = newPayloadKeyEntry('faults');
  /** Stopped after the APIs and workers, before Temporal and Postgres (what `prepare` started). */
  readonly extraStops: Array<() => Promise<void>> = [];
  private evmNode: RunningEvmNode | undefined;
  private bitcoinNode: FundedRegtestChain | undefined;
  private litecoinNode: FundedRegtestChain | undefined;
  private polygonNode: RunningEvmNode | undefined;
  private workerCount = 0;
  /** The networks withdrawals are paid on, on their nodes. */
  readonly payout: ReadonlySet<WithdrawalNetwork>;

  private constructor(
    readonly dir: string,
    readonly postgresPort: number,
    readonly temporalPort: number,
    private readonly options: FaultStackOptions,
  ) {
    this.markerDir = path.join(dir, 'fault-markers');
    this.payout = new Set(options.payoutNetworks ?? WITHDRAWAL_NETWORKS);
    this.bundlePath = path.join(dir, 'workflow-bundle.js');
    this.temporalAddress = `127.0.0.1:${temporalPort}`;
    this.databaseUrl = embeddedDatabaseUrls(postgresPort, LOOPBACK).appUrl;
    fs.mkdirSync(this.markerDir, { recursive: true });
    fs.mkdirSync(path.join(dir, 'logs'), { recursive: true });
    this.postgres = new StackProcess(
      'postgres',
      'postgres',
      (log) => this.launchInfrastructure('postgres', postgresPort, log),
      this.log('postgres'),
    );
    this.temporal = new StackProcess(
      'temporal',
      'temporal',
      (log) => this.launchInfrastructure('temporal', temporalPort, log),
      this.log('temporal'),
    );
  }

  /** Postgres (migrated) and Temporal, then the API and worker processes; the workflow bundle for fault workers alongside. */
  static async start(options: FaultStackOptions): Promise<FaultStack> {
    const dir = options.dir ?? fs.mkdtempSync(path.join(os.tmpdir(), 'partner-payments-faults-'));
    // The embedded Postgres runs as the 'postgres' user when we are root: it must reach the folder.
    fs.chmodSync(dir, 0o755);
    // A first run on a machine builds the Temporal CLI here (minutes), not within Temporal's start deadline.
    await findTemporalCli(
      loadSettings(process.env, path.resolve(__dirname, '../../..')).development.temporalCliPath,
      createLogger('faults-temporal', 'info'),
    );
    const stack = new FaultStack(dir, await freePort(), await freePort(), options);
    try {
      const utxoNode = (network: 'bitcoin' | 'litecoin') =>
        stack.payout.has(network)
          ? startFundedRegtestChain({
              network,
              dir,
              blockIntervalMs: BLOCK_INTERVAL_MS,
              coins: UTXO_COINS,
              log: createLogger(`faults-${network}-node`, 'warn'),
            })
          : undefined;
      const [, , evm, bitcoin, litecoin, polygon] = await Promise.all([
        stack.postgres.start(),
        stack.temporal.start(),
        // A block per transaction; the deposit load mines one a second besides (support/deposit-load.ts).
        startEvmNode({ dataDir: dir, log: createLogger('faults-evm-node', 'warn') }),
        utxoNode('bitcoin'),
        utxoNode('litecoin'),
        stack.payout.has('polygon')
          ? startEvmNode({
              dataDir: dir,
              chainId: POLYGON_CHAIN_ID,
              blockIntervalMs: BLOCK_INTERVAL_MS,
              hotWalletNative: '100000',
              log: createLogger('faults-polygon-node', 'warn'),
            })
          : undefined,
      ]);
      stack.evmNode = evm;
      stack.bitcoinNode = bitcoin;
      stack.litecoinNode = litecoin;
      stack.polygonNode = polygon;
      // As a real node: a nonce ahead of the chain waits in the pool for the one before it (a worker killed between storing
      // a transaction and sending it leaves such a gap until its retry sends it); Hardhat's automine would refuse it.
      if (polygon) {
        const control = createTestClient({
          chain: localChain(polygon.chainId, polygon.rpcUrl),
          mode: 'hardhat',
          transport: http(polygon.rpcUrl),
        });
        await control.setAutomine(false);
        // Seconds: viem's hardhat mode sends milliseconds itself.
        await control.setIntervalMining({ interval: BLOCK_INTERVAL_MS / 1000 });
      }
      const databaseUrls = embeddedDatabaseUrls(stack.postgresPort, LOOPBACK);
      await prepareDatabase(databaseUrls);
      // The UTXO networks' addresses and keys of the regtest kind (the migrations seed mainnet's).
      const admin = new pg.Client({ connectionString: databaseUrls.adminUrl });
      await admin.connect();
      await admin
        .query(`update network_config set chain = 'regtest' where network = any($1::text[])`, [[...stack.payout]])
        .finally(() => admin.end());
      const bundle = stack.buildBundle();
      await options.prepare?.(stack);
      for (let index = 0; index < options.apis; index += 1) await stack.addApi();
      // Prebuilt workers need the bundle first; the production ones build their own.
      if (options.prebuiltWorkers) await bundle;
      await Promise.all(Array.from({ length: options.workers }, () => stack.addWorker()));
      await bundle;
    } catch (error) {
      await stack.stop();
      throw error;
    }
    return stack;
  }

  /** The chain standing for ethereum: its deposits are watched, no withdrawal goes there. */
  get evm(): RunningEvmNode {
    if (!this.evmNode) throw new Error('the EVM node is not started');
    return this.evmNode;
  }

  /** The chain btc withdrawals are paid on. */
  get bitcoin(): FundedRegtestChain {
    if (!this.bitcoinNode) throw new Error('btcd is not started');
    return this.bitcoinNode;
  }

  /** The chain ltc withdrawals are paid on. */
  get litecoin(): FundedRegtestChain {
    if (!this.litecoinNode) throw new Error('litecoind is not started');
    return this.litecoinNode;
  }

  /** The chain pol withdrawals are paid on. */
  get polygon(): RunningEvmNode {
    if (!this.polygonNode) throw new Error("polygon's node is not started");
    return this.polygonNode;
  }

  /**
   * What a worker needs of the chains: the node for ethereum, so its deposit watcher runs there, and
   * those withdrawals are paid on. The APIs never talk to a node (core/rails.ts: a network with
   * settings is the worker's to judge).
   */
  private chainEnv(): Record<string, string> {
    const utxo = (node: FundedRegtestChain | undefined, network: string) =>
      node
        ? {
            [`UTXO_RPC_URL_${network}`]: node.node.rpcUrl,
            [`UTXO_HOT_WALLET_KEY_${network}`]: node.hotWalletKey,
            [`UTXO_CONFIRMATIONS_${network}`]: '1',
          }
        : {};
    const polygon = this.polygonNode;
    return {
      EVM_RPC_URL_ETHEREUM: this.evm.rpcUrl,
      EVM_CHAIN_ID_ETHEREUM: String(this.evm.chainId),
      EVM_HOT_WALLET_KEY_ETHEREUM: this.evm.hotWalletPrivateKey,
      EVM_USDC_ADDRESS_ETHEREUM: this.evm.usdcAddress,
      EVM_CONFIRMATIONS_ETHEREUM: '1',
      EVM_DEPOSIT_CONFIRMATIONS_ETHEREUM: String(DEPOSIT_CONFIRMATIONS),
      EVM_DEPOSIT_POLL_INTERVAL_MS_ETHEREUM: '300',
      ...utxo(this.bitcoinNode, 'BITCOIN'),
      ...utxo(this.litecoinNode, 'LITECOIN'),
      ...(polygon
        ? {
            EVM_RPC_URL_POLYGON: polygon.rpcUrl,
            EVM_CHAIN_ID_POLYGON: String(polygon.chainId),
            EVM_HOT_WALLET_KEY_POLYGON: polygon.hotWalletPrivateKey,
            EVM_USDC_ADDRESS_POLYGON: polygon.usdcAddress,
            EVM_CONFIRMATIONS_POLYGON: '1',
          }
        : {}),
    };
  }

  /** The environment every API and worker process gets. */
  env(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
    return {
      ...process.env,
      ...FAST_SETTINGS,
      // The production entries refuse to simulate a rail nobody accepted: all but the chains with a node here are simulated.
      SIMULATED_RAILS: RAILS.filter((rail) => rail !== 'ethereum' && !this.payout.has(rail as WithdrawalNetwork)).join(','),
      ...this.options.settings,
      DATABASE_URL: this.databaseUrl,
      TEMPORAL_ADDRESS: this.temporalAddress,
      TEMPORAL_NAMESPACE: 'default',
      TEMPORAL_TASK_QUEUE: this.taskQueue,
      PAYLOAD_ENCRYPTION_KEYS: this.payloadKeys,
      DATA_DIR: this.dir,
      FAULT_WORKFLOW_BUNDLE: this.bundlePath,
      FAULT_MARKER_DIR: this.markerDir,
      ...extra,
    };
  }

  /** Another API process (main/api.main.ts) on a port of its own, kept across restarts; resolves once it answers. */
  async addApi(): Promise<StackProcess> {
    const name = `api-${this.apis.length + 1}`;
    const port = await freePort();
    const metricsPort = this.options.apiMetrics ? await freePort() : 0;
    const api = new StackProcess(
      name,
      'api',
      async (logFile) => {
        const child = this.spawnLogged('main/api.main.ts', [], logFile, {
          PORT: String(port),
          ...(metricsPort ? { API_METRICS_PORT: String(metricsPort) } : {}),
          ...this.options.processEnv?.(name, 'api'),
        });
        await waitForHttp(`http://127.0.0.1:${port}/health/live`, child, logFile);
        return child;
      },
      this.log(name),
    );
    if (metricsPort) api.metricsUrl = `http://127.0.0.1:${metricsPort}/metrics`;
    this.apis.push(api);
    this.apiUrls.push(`http://127.0.0.1:${port}`);
    await api.start();
    return api;
  }

  /**
   * Another worker process, resolving once it polls (its /health/ready answers): the production
   * entry (main/worker.main.ts), or with `faultKillAt` the fault worker
   * (test/faults/support/fault-worker.main.ts), which SIGKILLs itself at that activity boundary once
   * (it may do so before it answers: `done` says it did).
   */
  async addWorker(options: { faultKillAt?: string; done?: () => boolean } = {}): Promise<StackProcess> {
    this.workerCount += 1;
    const name = options.faultKillAt
      ? `fault-worker-${this.workerCount}-${options.faultKillAt.replace(/[:@]/g, '-')}`
      : `worker-${this.workerCount}`;
    const prebuilt = options.faultKillAt !== undefined || this.options.prebuiltWorkers === true;
    const script = prebuilt ? 'test/faults/support/fault-worker.main.ts' : 'main/worker.main.ts';
    const worker: StackProcess = new StackProcess(
      name,
      'worker',
      async (logFile) => {
        const port = await freePort();
        const child = this.spawnLogged(script, [], logFile, {
          ...this.chainEnv(),
          WORKER_HTTP_PORT: String(port),
          ...(options.faultKillAt ? { FAULT_KILL_AT: options.faultKillAt } : {}),
          ...this.options.processEnv?.(name, 'worker'),
        });
        worker.metricsUrl = `http://127.0.0.1:${port}/metrics`;
        await waitForHttp(`http://127.0.0.1:${port}/health/ready`, child, logFile, options.done);
        return child;
      },
      this.log(name),
    );
    this.workers.push(worker);
    await worker.start();
    return worker;
  }

  /** Stops the worker processes that run (an orderly stop: they finish their tasks) and forgets them. */
  async stopWorkers(): Promise<void> {
    await Promise.all(this.workers.splice(0).map((worker) => worker.stop()));
  }

  /** Every process, API and worker first, then Temporal and Postgres; then the folder. */
  async stop(): Promise<void> {
    await Promise.allSettled([...this.apis, ...this.workers].map((child) => child.stop()));
    await Promise.allSettled(this.extraStops.splice(0).map((stop) => stop()));
    await Promise.allSettled([this.temporal.stop(), this.postgres.stop()]);
    await Promise.allSettled([
      this.temporal.stop(),
      this.postgres.stop(),
      this.evmNode?.stop(),
      this.bitcoinNode?.node.stop(),
      this.litecoinNode?.node.stop(),
      this.polygonNode?.stop(),
    ]);
    // Whatever a failed step left (recorded by spawnTsx).
    killRecordedProcesses(this.dir);
    if (process.env.FAULTS_KEEP_DIR) process.stderr.write(`fault campaign folder kept: ${this.dir}\n`);
    else fs.rmSync(this.dir, { recursive: true, force: true });
  }

  log(name: string): string {
    return path.join(this.dir, 'logs', `${name}.log`);
  }

  private spawnLogged(script: string, args: string[], logFile: string, extraEnv: Record<string, string>): ChildProcess {
    const fd = fs.openSync(logFile, 'a');
    try {
      return spawnTsx(this.dir, script, args, { env: this.env(extraEnv), stdio: ['ignore', fd, fd] });
    } finally {
      fs.closeSync(fd);
    }
  }

  /** Postgres or Temporal through infrastructure.main.ts, resolved when it prints READY; the log gets everything else. */
  private async launchInfrastructure(kind: 'postgres' | 'temporal', port: number, logFile: string): Promise<ChildProcess> {
    const fd = fs.openSync(logFile, 'a');
    let child: ChildProcess;
    try {
      child = spawnTsx(this.dir, 'test/faults/support/infrastructure.main.ts', [kind, this.dir, String(port)], {
        env: { ...process.env, LOG_LEVEL: 'info' },
        stdio: ['pipe', 'pipe', fd],
      });
    } finally {
      fs.closeSync(fd);
    }
    // The addresses are known already (the ports are ours): READY only says it serves.
    await new Promise<void>((resolve, reject) => {
      const timer = setTimeout(
        () => reject(new Error(`${kind} did not start within ${READY_TIMEOUT_MS} ms; see ${logFile}`)),
        READY_TIMEOUT_MS,
      );
      child.once('exit', (code, signal) => {
        clearTimeout(timer);
        reject(new Error(`${kind} exited (${code ?? signal}) before it was ready; see ${logFile}`));
      });
      readline.createInterface({ input: child.stdout! }).on('line', (line) => {
        if (line.startsWith('READY ')) {
          clearTimeout(timer);
          resolve();
        } else fs.appendFileSync(logFile, `${line}\n`);
      });
    });
    return child;
  }

  private async buildBundle(): Promise<void> {
    const child = this.spawnLogged('test/faults/support/fault-worker.main.ts', ['--bundle-only'], this.log('bundle'), {});
    const code = await new Promise<number | null>((resolve) => child.once('exit', (exitCode) => resolve(exitCode)));
    if (code !== 0 || !fs.existsSync(this.bundlePath)) throw new Error(`the workflow bundle was not built; see ${this.log('bundle')}`);
  }
}

/** Polls the URL until it answers 200 (or `done` says the process did its part); fails if the child exits first or time runs out. */
async function waitForHttp(url: string, child: ChildProcess, logFile: string, done?: () => boolean): Promise<void> {
  const deadline = Date.now() + READY_TIMEOUT_MS;
  while (Date.now() < deadline) {
    if (done?.()) return;
    if (child.exitCode !== null || child.signalCode !== null) {
      // The campaign's folder goes when it ends: the failure carries the log's end, which says why.
      throw new Error(
        `process exited (${child.exitCode ?? child.signalCode}) before ${url} answered; the end of ${logFile}:\n${lastLines(logFile, 20)}`,
      );
    }
    try {
      const response = await fetch(url, { signal: AbortSignal.timeout(2_000) });
      await response.arrayBuffer();
      if (response.status === 200) return;
    } catch {
      // not listening yet
    }
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
  await killProcessGroup(child);
  throw new Error(`${url} did not answer within ${READY_TIMEOUT_MS} ms; see ${logFile}`);
}

function lastLines(file: string, count: number): string {
  try {
    return fs.readFileSync(file, 'utf8').trimEnd().split('\n').slice(-count).join('\n');
  } catch (error) {
    return `(unreadable: ${String(error)})`;
  }
}

export function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
