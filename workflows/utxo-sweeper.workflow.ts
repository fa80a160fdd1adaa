import { continueAsNew, proxyActivities } from '@temporalio/workflow';
import type { Activities } from '../activities';
import { UTXO_SWEEP } from '../contracts';
import type { UtxoSweeperInput, UtxoSweeperWorkflow } from '../contracts';
import { withSummary } from './activity-proxies';
import { sweeperLoop } from './sweeper-loop';

/**
 * One round: node calls and a transaction or two, safe to run twice (the sweep's bytes are stored before they are sent).
 * Retried without end: a node or database that is down pauses it.
 */
const { sweepUtxoDeposits } = proxyActivities<Activities>({
  startToCloseTimeout: '2 minutes',
  retry: { initialInterval: '1 second', backoffCoefficient: 2, maximumInterval: '1 minute' },
});

/**
 * One UTXO network's sweeper: every poll interval, the sweep in flight moves a step (sent again if the node lost it, SWEPT at
 * its confirmations), or, with none, the credited deposits worth sweeping are signed into the next. It never fails.
 */
export async function utxoSweeperWorkflow(input: UtxoSweeperInput): Promise<void> {
  const round = withSummary(sweepUtxoDeposits, `sweep ${input.network}'s credited deposits: follow the sweep in flight, or sign one`);
  await sweeperLoop({
    network: input.network,
    rounds: Math.max(1, input.roundsPerRun ?? UTXO_SWEEP.roundsPerRun),
    afterFailureMs: UTXO_SWEEP.afterFailureMs,
    round: () => round({ network: input.network }),
    details: (result) =>
      `**${input.network}**: the last sweep ${result.stage} (${result.deposits} deposit(s)); the next round in ${result.pollIntervalMs} ms (\`npm run ops -- sweep list\`).`,
  });
  await continueAsNew<UtxoSweeperWorkflow>(input);
}
