import { Client, Connection } from '@temporalio/client';
import type { Logger } from '../../../core/logger';
import { parsePayloadKeys } from '../../../core/payload-codec';
import { temporalDataConverter } from '../../../core/temporal-connection';
import { startEvmNode } from '../../../dev/evm-node';
import type { RunningEvmNode } from '../../../dev/evm-node';
import { freePort } from '../../../dev/free-port';
import type { FundedRegtestChain } from '../../../dev/funded-regtest-chain';
import { developmentUtxoNodeUrl } from '../../../dev/utxo-node';
import type { ToxiproxyClient } from '../../../dev/toxiproxy-client';
import { ensureReconciliationSchedule } from '../../../worker/reconciliation-schedule';
import { ensureEvmDepositWatchers } from '../../../worker/evm-deposit-watchers';
import { ensureWebhookDispatcher } from '../../../worker/webhook-dispatcher';
import { FaultStack } from '../../faults/support/harness';
import type { StackProcess } from '../../faults/support/harness';
import { ChainControl } from './chain-control';
import { CHAOS_CONFIRMATIONS, CHAOS_SETTINGS } from './chaos-settings';
import { LINKS, proxyName } from './schedule';
import type { ClientName, Link, ProcessName, Upstream } from './schedule';
import { startToxiproxy } from './toxiproxy-server';

/**
 * The chaos run's stack: the fault campaign's (embedded Postgres, the Temporal dev server, 2 APIs,
 * 2 workers, each a process group it can kill, pause and restart, and its btcd, on which the load
 * pays btc withdrawals; litecoin and polygon stay simulated here) plus a local
 * Hardhat node for ethereum, and Toxiproxy between every API or worker and each thing it talks to:
 * one proxy per connection (`api-1-postgres`, `worker-2-ethereum`, `worker-1-bitcoin`, …), so one
 * worker can be cut from Postgres alone while everything else flows. The nemesis, the checker and
 * the operators connect directly.
 */
export class ChaosStack {
  private constructor(
    readonly fault: FaultStack,
    readonly toxiproxy: ToxiproxyClient,
    readonly evm: RunningEvmNode,
    readonly chain: ChainControl,
  ) {}

  /** `dir`: the stack's folder (the caller made it, so it can stop what was recorded there if interrupted during the start). */
  static async start(options: { seed: number; log: Logger; dir: string }): Promise<ChaosStack> {
    let toxiproxy: ToxiproxyClient | undefined;
    let evm: RunningEvmNode | undefined;
    let appDatabaseUrl = '';
    const ports = new Map<string, number>();
    const fault = await FaultStack.start({
      apis: 2,
      workers: 2,
      prebuiltWorkers: true,
      apiMetrics: true,
      dir: options.dir,
      // Withdrawals are paid on ethereum (its node here, below) and bitcoin; litecoin and polygon stay simulated.
      payoutNetworks: ['bitcoin'],
      settings: { ...CHAOS_SETTINGS },
      async prepare(stack) {
        appDatabaseUrl = stack.databaseUrl;
        const proxy = await startToxiproxy({ dataDir: stack.dir, logFile: stack.log('toxiproxy'), seed: options.seed, log: options.log });
        stack.extraStops.push(() => proxy.stop());
        toxiproxy = proxy.client;
        // Funded far beyond what an hour of withdrawals sends.
        const node = await startEvmNode({ dataDir: stack.dir, log: options.log, hotWalletNative: '1000000', hotWalletUsdc: '1000000000' });
        stack.extraStops.push(() => node.stop());
        evm = node;
        await new ChainControl(node).mineNormally();
        const upstreams: Record<Upstream, string> = {
          postgres: `127.0.0.1:${stack.postgresPort}`,
          temporal: stack.temporalAddress,
          ethereum: new URL(node.rpcUrl).host,
          bitcoin: new URL(stack.bitcoin.node.rpcUrl).host,
        };
        for (const link of LINKS) {
          const port = await freePort();
          await proxy.client.createProxy(proxyName(link), `127.0.0.1:${port}`, upstreams[link.upstream]);
          ports.set(proxyName(link), port);
        }
        await registerInTemporal(stack, options.log);
      },
      processEnv(name, kind) {
        const port = (upstream: Upstream) => ports.get(proxyName({ client: name as ClientName, upstream }))!;
        const databaseUrl = new URL(appDatabaseUrl);
        databaseUrl.port = String(port('postgres'));
        const env: Record<string, string> = { DATABASE_URL: databaseUrl.toString(), TEMPORAL_ADDRESS: `127.0.0.1:${port('temporal')}` };
        if (kind === 'worker' && evm) {
          Object.assign(env, {
            UTXO_RPC_URL_BITCOIN: developmentUtxoNodeUrl('127.0.0.1', port('bitcoin')),
            UTXO_CONFIRMATIONS_BITCOIN: String(CHAOS_CONFIRMATIONS),
            EVM_RPC_URL_ETHEREUM: `http://127.0.0.1:${port('ethereum')}`,
            EVM_CHAIN_ID_ETHEREUM: String(evm.chainId),
            EVM_HOT_WALLET_KEY_ETHEREUM: evm.hotWalletPrivateKey,
            EVM_USDC_ADDRESS_ETHEREUM: evm.usdcAddress,
            EVM_CONFIRMATIONS_ETHEREUM: String(CHAOS_CONFIRMATIONS),
            EVM_DEPOSIT_CONFIRMATIONS_ETHEREUM: String(CHAOS_CONFIRMATIONS),
            // The shortest allowed: a mining stall of up to 20 s sees transactions replaced at higher fees.
            EVM_REPLACE_AFTER_MS: '10000',
          });
        }
        return env;
      },
    });
    return new ChaosStack(fault, toxiproxy!, evm!, new ChainControl(evm!));
  }

  /** bitcoin's node and hot wallet: the campaign's. */
  get bitcoin(): FundedRegtestChain {
    return this.fault.bitcoin;
  }

  /** Every process the nemesis may kill or pause, by name. */
  process(name: ProcessName): StackProcess {
    const { fault } = this;
    const found = [fault.postgres, fault.temporal, ...fault.apis, ...fault.workers].find((each) => each.name === name);
    if (!found) throw new Error(`no process ${name}`);
    return found;
  }

  processes(): StackProcess[] {
    return [this.fault.postgres, this.fault.temporal, ...this.fault.apis, ...this.fault.workers];
  }

  get apiUrls(): readonly string[] {
    return this.fault.apiUrls;
  }

  /** Everything running and every link clean: what the settle period starts from. */
  async healEverything(): Promise<string[]> {
    const problems: string[] = [];
    await this.toxiproxy.reset().catch((error: unknown) => problems.push(`toxiproxy reset: ${String(error)}`));
    for (const each of this.processes()) {
      if (each.paused) each.resume();
      if (!each.running) {
        await each.start().catch((error: unknown) => problems.push(`${each.name} did not start again: ${String(error)}`));
      }
    }
    await this.chain.mineNormally().catch((error: unknown) => problems.push(`chain mining: ${String(error)}`));
    return problems;
  }

  async stop(): Promise<void> {
    await this.fault.stop();
  }
}

/**
 * What a production worker ensures at its start (the search attributes come with the dev server):
 * the reconciliation Schedule, the webhook dispatcher and the deposit watchers of the real networks (a UTXO network's
 * records the hot wallet's coins; custody reads what they read), here once, since the chaos workers run from the prebuilt
 * bundle and skip it.
 */
async function registerInTemporal(stack: FaultStack, log: Logger): Promise<void> {
  const connection = await Connection.connect({ address: stack.temporalAddress });
  try {
    const client = new Client({
      connection,
      namespace: 'default',
      dataConverter: temporalDataConverter({ payloadKeys: parsePayloadKeys(stack.payloadKeys) }),
    });
    await ensureReconciliationSchedule(client, stack.taskQueue, log);
    await ensureWebhookDispatcher(client, stack.taskQueue, log);
    await ensureEvmDepositWatchers(client, stack.taskQueue, ['ethereum', 'bitcoin'], log);
  } finally {
    await connection.close();
  }
}

export type { Link };
