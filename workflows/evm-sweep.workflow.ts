import { continueAsNew, proxyActivities, setCurrentDetails, sleep } from '@temporalio/workflow';
import type { Activities } from '../activities';
import { EVM_SWEEP } from '../contracts';
import type { EvmSweepInput, EvmSweepProgress, EvmSweepResult, EvmSweepWorkflow } from '../contracts';
import { withSummary } from './activity-proxies';

/** Safe to run again, so retried without end (a node that is down pauses the sweep); a refusal fails it for good. */
const { claimEvmSweep, advanceEvmSweep } = proxyActivities<Activities>({
  startToCloseTimeout: '1 minute',
  retry: { initialInterval: '1 second', backoffCoefficient: 2, maximumInterval: '1 minute' },
});

function details(input: EvmSweepInput, progress: EvmSweepProgress): string {
  const what = `**${input.currency}** from \`${input.address}\` on ${input.network} to the hot wallet`;
  return [`${what}: ${progress.status} (${progress.stage})`, '', `- Sweep \`${progress.sweepId}\` (\`npm run ops -- sweep list\`)`].join(
    '\n',
  );
}

/**
 * One sweep of a deposit address and currency: claim (or resume), then advance a step per poll interval until SWEPT or
 * FAILED. Its state lives in Postgres, so a run continued as new, or started again, resumes it.
 */
export async function evmSweepWorkflow(input: EvmSweepInput): Promise<EvmSweepResult> {
  const claim = await withSummary(claimEvmSweep, `claim the credited ${input.currency} at the deposit address`)(input);
  if (claim.kind === 'busy') return { outcome: 'BUSY', reason: `sweep ${claim.inFlight} of another currency is in flight at the address` };
  if (claim.kind === 'nothing') return { outcome: 'NOTHING', reason: claim.reason };
  const advance = withSummary(advanceEvmSweep, `the sweep's next step (sign, top up gas, send, confirm)`);
  for (let poll = 0; poll < EVM_SWEEP.pollsPerRun; poll += 1) {
    const progress = await advance({ sweepId: claim.sweepId });
    setCurrentDetails(details(input, progress));
    if (progress.status !== 'IN_FLIGHT') return { outcome: progress.status, progress };
    await sleep(input.pollIntervalMs);
  }
  return continueAsNew<EvmSweepWorkflow>(input);
}
