import { Context } from '@temporalio/activity';
import type { EvmDepositScanResult, UtxoDepositScanInput } from '../contracts';
import { EVM_DEPOSIT_WATCH } from '../contracts';
import { NETWORK_DECLARATIONS } from '../core/networks';
import type { UtxoNetwork } from '../core/networks';
import { creditCryptoDeposit, findDueCryptoDeposits } from '../db/queries/crypto-deposit.queries';
import type { UtxoChainAdapter } from './adapters/chain/utxo/utxo-chain.adapter';
import type { ActivityDependencies } from './dependencies';
import { creditableUpTo } from './deposit-depth';
import type { DepositWatchMetrics } from './evm-deposit.activities';

/** A watched UTXO network: how deep a deposit must be before it is credited, and how often the head is read when caught up. */
export interface UtxoDepositWatchConfig {
  confirmations: number;
  pollIntervalMs: number;
}

export type UtxoDepositDependencies = Pick<ActivityDependencies, 'pool' | 'clock' | 'log'> & {
  /** The UTXO networks this worker watches (those with an RPC URL), read through the withdrawals' adapter. */
  utxoDeposits?: {
    scanner: Pick<UtxoChainAdapter, 'scan'>;
    networks: Partial<Record<UtxoNetwork, UtxoDepositWatchConfig>>;
    metrics?: DepositWatchMetrics;
  };
};

/** Credits per batch at most, as on EVM networks. */
const CREDITS_PER_BATCH = 200;

export function createUtxoDepositActivities(deps: UtxoDepositDependencies) {
  const metrics = deps.utxoDeposits?.metrics;
  return {
    /**
     * One batch of a UTXO network's watcher, safe to run twice, even at once (each block is recorded once, under a lock):
     * the node must be on the recorded chain; reorganised blocks are rewound (their deposits not credited end UNSUCCESSFUL);
     * up to EVM_DEPOSIT_WATCH.blocksPerBatch blocks are read for the hot wallet's coins and deposits to partners' addresses,
     * each block in one transaction; then deposits with their confirmations are credited, each with its ledger transfer.
     */
    async scanUtxoDeposits(input: UtxoDepositScanInput): Promise<EvmDepositScanResult> {
      const { network } = input;
      const config = deps.utxoDeposits?.networks[network];
      // Retryable: in a rolling deploy a worker that has the network's settings takes the next attempt.
      if (!deps.utxoDeposits || !config)
        throw new Error(`this worker does not watch ${network} (no UTXO_RPC_URL_${network.toUpperCase()})`);
      const context = Context.current();
      const scan = await deps.utxoDeposits.scanner.scan(network, EVM_DEPOSIT_WATCH.blocksPerBatch, () => context.heartbeat());
      context.heartbeat();
      if (scan.depositsSeen > 0) {
        metrics?.seen(network, currencyOf(network), scan.depositsSeen);
        deps.log.info(`${scan.depositsSeen} deposit(s) seen on ${network} up to block ${scan.lastBlock}`);
      }
      if (scan.rewound > 0) metrics?.rewound(network, scan.rewound);
      metrics?.lag(network, Math.max(0, scan.head - scan.lastBlock));
      const upTo = creditableUpTo({ head: BigInt(scan.head), confirmations: config.confirmations, lastRead: BigInt(scan.lastBlock) });
      let credited = 0;
      if (upTo >= 0n) {
        for (const id of await findDueCryptoDeposits(deps.pool, network, upTo, CREDITS_PER_BATCH)) {
          if ((await creditCryptoDeposit(deps.pool, id, deps.clock.now())).credited) credited += 1;
          context.heartbeat();
        }
      }
      if (credited > 0) metrics?.credited(network, currencyOf(network), credited);
      return {
        network,
        head: String(scan.head),
        lastBlock: String(scan.lastBlock),
        blocksRead: scan.blocksRead,
        seen: scan.depositsSeen,
        credited,
        rewound: scan.rewound,
        caughtUp: scan.lastBlock >= scan.head,
        pollIntervalMs: config.pollIntervalMs,
      };
    },
  };
}

function currencyOf(network: UtxoNetwork): string {
  return NETWORK_DECLARATIONS[network].nativeCurrency;
}
