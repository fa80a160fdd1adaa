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
  /**
   * Workflows refused since the previous report because the API never accepted their operation
   * (started straight on Temporal, or with altered input): nothing was held, but someone tried.
   * Absent from reports written before the check existed.
   */
  refusedUnknownOperations?: number;
  /**
   * 1 when the SEPA_SUSPENSE account does not hold exactly what the incoming SEPA credits waiting
   * for an operator add up to, else 0. Absent from reports written before the check existed.
   */
  suspenseMismatches?: number;
  /**
   * Crypto deposits credited and then removed from the chain by a reorganisation: the credit
   * stands (never reversed silently) until an operator decides. Absent from reports written
   * before deposits were watched.
   */
  orphanedCreditedDeposits?: number;
  /**
   * EVM currencies whose coins on chain (hot wallets and deposit addresses not yet swept) are
   * fewer than what the ledger owes partners. Absent from reports written before the check existed.
   */
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
