import { continueAsNew, log, proxyActivities, setCurrentDetails, sleep, workflowInfo } from '@temporalio/workflow';
import type { Activities } from '../activities';
import { EVM_SWEEP } from '../contracts';
import type { EvmSweeperInput, EvmSweeperWorkflow } from '../contracts';
import { withSummary } from './activity-proxies';

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
  const rounds = Math.max(1, input.roundsPerRun ?? EVM_SWEEP.roundsPerRun);
  const round = withSummary(startDueEvmSweeps, `start the sweeps due on ${input.network}`);
  for (let done = 0; done < rounds && !workflowInfo().continueAsNewSuggested; done += 1) {
    let wait: number;
    try {
      const result = await round({ network: input.network });
      setCurrentDetails(`**${input.network}**: ${result.due} sweep(s) due at the last round; the next in ${result.pollIntervalMs} ms.`);
      wait = result.pollIntervalMs;
    } catch (error) {
      log.warn(`sweep round of ${input.network} failed for good; trying again later`, { error });
      setCurrentDetails(`**${input.network}**: the last round failed (see its activity); the next one starts within a minute.`);
      wait = EVM_SWEEP.afterFailureMs;
    }
    await sleep(wait);
  }
  await continueAsNew<EvmSweeperWorkflow>(input);
}
