import type { WorkflowContract } from './operation.contract';

/**
 * Incoming SEPA credits: a short workflow the `incoming-sepa` Schedule starts every
 * INCOMING_SEPA_EVERY_SECONDS. It reads the bank's camt.054 notifications since the stored cursor
 * and records each credit (a partner credited, or the money held in suspense for an operator), then
 * moves the returns operators asked for (`ops bank return`) one step on: submitted to the bank,
 * settled or rejected on its answer. Every step is idempotent, so a run that stopped anywhere is
 * finished by the next one.
 */
export interface IncomingSepaIngestResult {
  /** Documents read, and those refused whole (over the size bound, a DTD, not camt.054.001.08, not well-formed). */
  documents: number;
  refusedDocuments: number;
  /** Entries credited to a partner at once, and those held in suspense. */
  credited: number;
  unmatched: number;
  /** Entries recorded before: a notification delivered again. */
  duplicates: number;
  /** Entries under a recorded reference with other details: not recorded, logged for an operator. */
  conflicts: number;
  /** Entries skipped: debits, not booked, or malformed (each logged with its reference). */
  skippedEntries: number;
}

export interface SepaReturnsResult {
  /** Return payments handed to the bank this run. */
  returnsSubmitted: number;
  /** Settled by the bank (the money left suspense), and rejected (the credit is UNMATCHED again). */
  returnsSettled: number;
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
