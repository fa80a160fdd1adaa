import type { WorkflowContract } from './operation.contract';

/**
 * Started by the `incoming-sepa` Schedule: records the bank's camt.054 credits since the cursor, then
 * moves operators' returns one step on. Every step is idempotent, so the next run finishes a broken one.
 */
export interface IncomingSepaIngestResult {
  documents: number;
  /** Over the size bound, a DTD, not camt.054.001.08, or not well-formed. */
  refusedDocuments: number;
  credited: number;
  /** Held in suspense for an operator. */
  unmatched: number;
  duplicates: number;
  /** Entries under a recorded reference with other details: not recorded, logged for an operator. */
  conflicts: number;
  /** Debits, not booked, or malformed (each logged with its reference). */
  skippedEntries: number;
}

export interface SepaReturnsResult {
  returnsSubmitted: number;
  returnsSettled: number;
  /** The credit is UNMATCHED again. */
  returnsRejected: number;
  /** Returns that failed a step this run; the next run tries again. */
  returnsFailed: number;
}

export type IncomingSepaResult = IncomingSepaIngestResult & SepaReturnsResult;

export type IncomingSepaWorkflow = () => Promise<IncomingSepaResult>;

export const incomingSepaContract: WorkflowContract<IncomingSepaWorkflow> = {
  workflowType: 'incomingSepaWorkflow',
  workflowId: (runName) => `incoming-sepa${runName ? `-${runName}` : ''}`,
};
