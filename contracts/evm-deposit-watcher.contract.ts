import { isEvmNetwork } from '../core/networks';
import type { EvmNetwork, Network, UtxoNetwork } from '../core/networks';
import type { WorkflowContract } from './operation.contract';

/**
 * One long-running deposit watcher per configured EVM network, started by the worker on boot. Each
 * activity reads a batch of blocks; where it stands (the cursor, the blocks read) is kept in Postgres.
 */
export type EvmDepositNetwork = EvmNetwork;

/**
 * The watcher runs for UTXO networks too (their hot wallet's coins and deposits, scanUtxoDeposits): the same loop, the
 * other family's batch.
 */
export interface EvmDepositWatcherInput {
  network: Network;
  /** Batches before the workflow continues as new. Default EVM_DEPOSIT_WATCH.batchesPerRun. */
  batchesPerRun?: number;
}

export type EvmDepositWatcherWorkflow = (input: EvmDepositWatcherInput) => Promise<void>;

/** What one batch is asked to do. */
export interface EvmDepositScanInput {
  network: EvmDepositNetwork;
}

/** What one batch of a UTXO network's watcher is asked to do. */
export interface UtxoDepositScanInput {
  network: UtxoNetwork;
}

/** What one batch did; block numbers as decimal text (they pass through JSON). */
export interface EvmDepositScanResult {
  network: Network;
  /** The node's head when the batch began. */
  head: string;
  /** The last block read after the batch (the cursor). */
  lastBlock: string;
  /** Blocks read in this batch (0 when caught up). */
  blocksRead: number;
  seen: number;
  credited: number;
  /** Blocks rewound because the node's chain no longer went through them; 0 without a reorganisation. */
  rewound: number;
  /** At the head: the workflow waits pollIntervalMs before the next batch. */
  caughtUp: boolean;
  pollIntervalMs: number;
}

/**
 * At most 20 blocks per batch (each read whole, with its transactions), and 200 batches per run:
 * with its waits, about 2,000 history events before the workflow continues as new.
 */
export const EVM_DEPOSIT_WATCH = {
  blocksPerBatch: 20,
  batchesPerRun: 200,
  heartbeatTimeoutMs: 30_000,
  /** After a batch that failed for good (outages are retried instead), before the next. */
  afterFailureMs: 60_000,
} as const;

export const evmDepositWatcherContract: WorkflowContract<EvmDepositWatcherWorkflow> = {
  workflowType: 'evmDepositWatcherWorkflow',
  workflowId: (network) => `${isEvmNetwork(network as Network) ? 'evm-' : ''}deposit-watcher-${network}`,
};
