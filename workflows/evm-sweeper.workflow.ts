import { continueAsNew, proxyActivities } from '@temporalio/workflow';
import type { Activities } from '../activities';
import { EVM_SWEEP } from '../contracts';
import type { EvmSweeperInput, EvmSweeperWorkflow } from '../contracts';
import { withSummary } from './activity-proxies';
import { sweeperLoop } from './sweeper-loop';

/** One round: a query and a start (or join) per due sweep. Retried without end: a database or Temporal that is down pauses it. */
const { startDueEvmSweeps } = proxyActivities<Activities>({
  startToCloseTimeout: '2 minutes',
  heartbeatTimeout: '30 seconds',
  retry: { initialInterval: '1 second', backoffCoefficient: 2, maximumInterval: '1 minute' },
});

/**
 * One EVM network's sweeper: every poll interval, addresses holding credited deposits above the threshold get a sweep
 * workflow. It never fails: a round that fails for good is logged and tried again later.
 */
export async function evmSweeperWorkflow(input: EvmSweeperInput): Promise<void> {
  const round = withSummary(startDueEvmSweeps, `start the sweeps due on ${input.network}`);
  await sweeperLoop({
    network: input.network,
    rounds: Math.max(1, input.roundsPerRun ?? EVM_SWEEP.roundsPerRun),
    afterFailureMs: EVM_SWEEP.afterFailureMs,
    round: () => round({ network: input.network }),
    details: (result) => `**${input.network}**: ${result.due} sweep(s) due at the last round; the next in ${result.pollIntervalMs} ms.`,
  });
  await continueAsNew<EvmSweeperWorkflow>(input);
}
