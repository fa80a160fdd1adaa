import { continueAsNew, log, proxyActivities, setCurrentDetails, sleep, workflowInfo } from '@temporalio/workflow';
import type { Activities } from '../activities';
import { EVM_DEPOSIT_WATCH } from '../contracts';
import type { EvmDepositScanResult, EvmDepositWatcherInput, EvmDepositWatcherWorkflow } from '../contracts';
import { withSummary } from './activity-proxies';
import { isEvmNetwork } from '../core/networks';
import type { Network } from '../core/networks';

/**
 * One batch of blocks, heartbeating (the cursor moves only from where a batch found it, so two attempts never record a
 * block twice). Retried without limit: a node or database that is down pauses the watcher, never stops it.
 */
const { scanEvmDeposits, scanUtxoDeposits } = proxyActivities<Activities>({
  startToCloseTimeout: '3 minutes',
  heartbeatTimeout: EVM_DEPOSIT_WATCH.heartbeatTimeoutMs,
  retry: { initialInterval: '1 second', backoffCoefficient: 2, maximumInterval: '1 minute' },
});

/** What the run's page in the Temporal UI shows after each batch: where the watcher stands. */
function batchDetails(result: EvmDepositScanResult): string {
  const lag = BigInt(result.head) - BigInt(result.lastBlock);
  return [
    `**${result.network}**: read up to block ${result.lastBlock} of ${result.head}${lag > 0n ? ` (${lag} behind)` : ' (caught up)'}`,
    '',
    `- Last batch: ${result.blocksRead} block(s) read, ${result.seen} deposit(s) seen, ${result.credited} credited` +
      (result.rewound > 0 ? `, **rewound ${result.rewound} block(s)** (a reorganisation)` : ''),
  ].join('\n');
}

/** One batch of the network's family: EVM logs and transfers, or UTXO outputs (the hot wallet's coins too). */
function batchOf(network: Network): () => Promise<EvmDepositScanResult> {
  if (isEvmNetwork(network)) {
    const scan = withSummary(scanEvmDeposits, `read ${network} blocks for deposits; credit those with their confirmations`);
    return () => scan({ network });
  }
  const scan = withSummary(
    scanUtxoDeposits,
    `read ${network} blocks for the hot wallet's coins and deposits; credit those with their confirmations`,
  );
  return () => scan({ network });
}

/**
 * One network's deposit watcher: batches back to back while behind the head, a poll interval's sleep once caught up,
 * continue-as-new after a bounded number. It never fails: a batch that fails for good is logged and tried again later.
 */
export async function evmDepositWatcherWorkflow(input: EvmDepositWatcherInput): Promise<void> {
  const batches = Math.max(1, input.batchesPerRun ?? EVM_DEPOSIT_WATCH.batchesPerRun);
  const { network } = input;
  const scan = batchOf(network);
  for (let batch = 0; batch < batches && !workflowInfo().continueAsNewSuggested; batch += 1) {
    let result: EvmDepositScanResult;
    try {
      result = await scan();
    } catch (error) {
      log.warn(`deposit batch of ${input.network} failed for good; trying again later`, { error });
      setCurrentDetails(`**${input.network}**: the last batch failed (see its activity); the next one starts within a minute.`);
      await sleep(EVM_DEPOSIT_WATCH.afterFailureMs);
      continue;
    }
    setCurrentDetails(batchDetails(result));
    if (result.caughtUp) await sleep(result.pollIntervalMs);
  }
  await continueAsNew<EvmDepositWatcherWorkflow>(input);
}
