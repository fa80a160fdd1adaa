import { ApplicationFailure, proxyActivities, setCurrentDetails } from '@temporalio/workflow';
import type { Activities } from '../activities';
import { RECONCILIATION_FINDINGS } from '../contracts';
import type { ReconciliationInput, ReconciliationResult } from '../contracts';
import { withSummary } from './activity-proxies';

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
  ['refusedUnknownOperations', 'workflows refused as operations the API never accepted'],
  ['suspenseMismatches', 'SEPA suspense off the unmatched credits'],
  ['orphanedCreditedDeposits', 'credited deposits removed from the chain by a reorganisation'],
  ['utxoInputConflicts', 'UTXO withdrawals whose input a transaction not their own spent'],
  ['transfersWithoutRecord', 'ledger transfers without the business record of their kind'],
  ['custodyShortfalls', 'currencies whose coins on chain fall short of what partners are owed'],
];

/** "reconciliation found 3 problems: 2 …, 1 … (reconciliation report ID)": counts and ids only, no personal data. */
export function summarizeFindings(result: ReconciliationResult): string {
  const found = FINDING_LABELS.filter(([key]) => Number(result[key] ?? 0) > 0);
  const problems = found.reduce((sum, [key]) => sum + Number(result[key]), 0);
  const counted = found.map(([key, label]) => `${String(result[key])} ${label}`);
  return `reconciliation found ${problems} problem${problems === 1 ? '' : 's'}: ${counted.join(', ')} (reconciliation report ${result.reportId})`;
}

/** What the run's page in the Temporal UI shows (current details), and where to read the whole report. */
function reportDetails(result: ReconciliationResult): string {
  return [
    result.ok ? '**No findings:** the books are sound.' : `**${summarizeFindings(result)}**`,
    '',
    `- Ledger invariants: ${result.ledgerSound ? 'hold' : '**broken**'}`,
    `- Holds checked against their workflows: ${result.heldTransfersChecked} of ${result.heldTransfersTotal}`,
    `- Report \`${result.reportId}\` (the newest report: \`npm run ops -- reconciliation latest\`)`,
  ].join('\n');
}

/**
 * Run by a Schedule: checks the ledger and the records against it and stores a report. Findings fail the run
 * (reconciliation-findings), so it shows as Failed in the UI; the stored report's id is in the message.
 */
export async function reconciliationWorkflow(input: ReconciliationInput): Promise<ReconciliationResult> {
  setCurrentDetails('**Checking** the ledger and the operations against it…');
  const result = await withSummary(reconcileLedger, 'check the ledger, the operations and their holds; store a report')(input);
  setCurrentDetails(reportDetails(result));
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
