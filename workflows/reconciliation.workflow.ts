import { ApplicationFailure, proxyActivities } from '@temporalio/workflow';
import type { Activities } from '../activities';
import { RECONCILIATION_FINDINGS } from '../contracts';
import type { ReconciliationInput, ReconciliationResult } from '../contracts';

const { reconcileLedger } = proxyActivities<Activities>({
  startToCloseTimeout: '5 minutes',
  retry: { initialInterval: '5 seconds', backoffCoefficient: 2, maximumInterval: '1 minute', maximumAttempts: 5 },
});

const FINDING_LABELS: ReadonlyArray<[keyof ReconciliationResult, string]> = [
  ['unbalancedTransfers', 'unbalanced transfers'],
  ['balanceMismatches', 'cached balances off their postings'],
  ['overdrawnAccounts', 'overdrawn accounts'],
  ['heldWithoutRunningWorkflow', 'holds whose workflow is closed or gone'],
  ['holdsWithoutOperation', 'holds without an operation'],
  ['unsuccessfulNotVoided', 'unsuccessful operations not voided'],
  ['successfulNotPosted', 'successful operations not posted'],
  ['openWithoutHold', 'open operations without a hold'],
  ['stuckOperations', 'operations in flight too long'],
];

export function summarizeFindings(result: ReconciliationResult): string {
  const found = FINDING_LABELS.filter(([key]) => Number(result[key]) > 0).map(([key, label]) => `${String(result[key])} ${label}`);
  return `reconciliation report ${result.reportId}: ${found.join(', ')}`;
}

/**
 * Run by a Temporal Schedule: checks the ledger and the business records against it and stores a
 * report. A report with findings fails the run (non-retryable, type reconciliation-findings), so
 * it shows as Failed in the UI; the report is stored first, its id is in the message, and the
 * result is the failure's details.
 */
export async function reconciliationWorkflow(input: ReconciliationInput): Promise<ReconciliationResult> {
  const result = await reconcileLedger(input);
  if (!result.ok) {
    throw ApplicationFailure.create({
      type: RECONCILIATION_FINDINGS,
      message: summarizeFindings(result),
      nonRetryable: true,
      details: [result],
    });
  }
  return result;
}
