import { continueAsNew, log, proxyActivities, setCurrentDetails, sleep, workflowInfo } from '@temporalio/workflow';
import type { Activities } from '../activities';
import { EVM_SWEEP } from '../contracts';
import type { EvmSweepRoundResult, EvmSweeperInput, EvmSweeperWorkflow } from '../contracts';
import { isEvmNetwork } from '../core/networks';
import type { Network } from '../core/networks';
import { withSummary } from './activity-proxies';

/** One round: a query and a start (or join) per due sweep, or a UTXO sweep's next step. Retried without end: a database or node that is down pauses it. */
const { startDueEvmSweeps, sweepUtxoDeposits } = proxyActivities<Activities>({
  startToCloseTimeout: '2 minutes',
  heartbeatTimeout: '30 seconds',
  retry: { initialInterval: '1 second', backoffCoefficient: 2, maximumInterval: '1 minute' },
});

/** One round of the network's family, and what the run's page in the Temporal UI says after it. */
function roundOf(network: Network): { run: () => Promise<EvmSweepRoundResult>; details: (result: EvmSweepRoundResult) => string } {
  if (isEvmNetwork(network)) {
    const round = withSummary(startDueEvmSweeps, `start the sweeps due on ${network}`);
    return {
      run: () => round({ network }),
      details: (result) => `**${network}**: ${result.due} sweep(s) due at the last round; the next in ${result.pollIntervalMs} ms.`,
    };
  }
  const round = withSummary(
    sweepUtxoDeposits,
    `sweep ${network}'s credited deposits to the hot wallet: follow the sweep in flight, or sign one`,
  );
  return {
    run: () => round({ network }),
    details: (result) =>
      `**${network}**: the last sweep ${result.stage ?? ''} (${result.due} deposit(s)); the next round in ${result.pollIntervalMs} ms (\`npm run ops -- sweep list\`).`,
  };
}

/**
 * One network's sweeper: every poll interval, EVM addresses holding credited deposits above the threshold get a sweep
 * workflow, or a UTXO network's sweep moves a step. It never fails: a round that fails for good is logged and tried again later.
 */
export async function evmSweeperWorkflow(input: EvmSweeperInput): Promise<void> {
  const rounds = Math.max(1, input.roundsPerRun ?? EVM_SWEEP.roundsPerRun);
  const round = roundOf(input.network);
  for (let done = 0; done < rounds && !workflowInfo().continueAsNewSuggested; done += 1) {
    let wait: number;
    try {
      const result = await round.run();
      setCurrentDetails(round.details(result));
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
