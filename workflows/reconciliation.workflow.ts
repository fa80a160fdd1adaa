import { proxyActivities } from '@temporalio/workflow';
import type { Activities } from '../activities';
import type { ReconciliationResult } from '../activities/reconciliation.activities';

const { reconcileLedger } = proxyActivities<Activities>({
  startToCloseTimeout: '5 minutes',
  retry: { initialInterval: '5 seconds', backoffCoefficient: 2, maximumInterval: '1 minute', maximumAttempts: 5 },
});

/** Run by a Temporal Schedule: checks the ledger invariants and records a report. */
export async function reconciliationWorkflow(input: { stuckAfterMs: number }): Promise<ReconciliationResult> {
  return reconcileLedger(input);
}
