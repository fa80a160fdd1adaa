import type { WorkflowContract } from './operation.contract';

export interface ReconciliationInput {
  /** An operation still open after this long needs an operator. */
  stuckAfterMs: number;
  /** Holds younger than this are not checked against their workflow (it may be starting). Default one minute. */
  heldAfterMs?: number;
  /** At most this many holds (oldest first) are checked against Temporal per run. Default 500. */
  maxHeldTransfersChecked?: number;
}

export interface ReconciliationResult {
  reportId: string;
  /** No finding of any kind. */
  ok: boolean;
  /** The books themselves hold: every transfer balanced, every cached balance right, nobody overdrawn. */
  ledgerSound: boolean;
  /** Findings per kind (each list in the report is capped at 100). */
  unbalancedTransfers: number;
  balanceMismatches: number;
  overdrawnAccounts: number;
  stuckOperations: number;
  /** Holds of open operations whose workflow is closed (terminated, failed, …) or gone. */
  heldWithoutRunningWorkflow: number;
  unsuccessfulNotVoided: number;
  successfulNotPosted: number;
  openWithoutHold: number;
  /** Holds under an id that no operation has. */
  holdsWithoutOperation: number;
  /** Workflows refused since the last report because the API never accepted their operation; absent from older reports. */
  refusedUnknownOperations?: number;
  /** 1 when SEPA_SUSPENSE does not hold exactly the unmatched incoming credits, else 0; absent from older reports. */
  suspenseMismatches?: number;
  /** Credited deposits a reorganisation removed: the credit stands until an operator decides; absent from older reports. */
  orphanedCreditedDeposits?: number;
  /** UTXO withdrawals whose input was spent by a transaction not their own: pending until an operator decides; absent from older reports. */
  utxoInputConflicts?: number;
  /** Transfers that moved or hold money without the business record of their kind (a direct ledger call); absent from older reports. */
  transfersWithoutRecord?: number;
  /** EVM currencies whose coins on chain are fewer than the ledger owes partners; absent from older reports. */
  custodyShortfalls?: number;
  /** How many holds were checked against Temporal this run, of how many old enough to check. */
  heldTransfersChecked: number;
  heldTransfersTotal: number;
}

export type ReconciliationWorkflow = (input: ReconciliationInput) => Promise<ReconciliationResult>;

/** Run by the `ledger-reconciliation` Schedule; the id is the schedule's. */
export const reconciliationContract: WorkflowContract<ReconciliationWorkflow> = {
  workflowType: 'reconciliationWorkflow',
  workflowId: (runName) => `ledger-reconciliation${runName ? `-${runName}` : ''}`,
};

/** The failure type of a run whose report has findings: filter on it in the Temporal UI. */
export const RECONCILIATION_FINDINGS = 'reconciliation-findings';
