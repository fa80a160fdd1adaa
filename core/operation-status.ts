/** Public status of every money movement, as history and withdrawal details show it. */
export type OperationStatus = 'IN_PROGRESS' | 'IN_PROGRESS_TR_DATA' | 'SUCCESSFUL' | 'UNSUCCESSFUL';

export function isFinal(status: OperationStatus): boolean {
  return status === 'SUCCESSFUL' || status === 'UNSUCCESSFUL';
}

/** What a reservation step found or made: a re-run after a reset learns the operation is over. */
export interface OperationState {
  status: OperationStatus;
  stage: string;
}

/** What releasing an outgoing payment did: RELEASED voided the hold; HANDED_OFF released nothing, the money may have left. */
export type ReleaseOutcome = 'RELEASED' | 'HANDED_OFF';

/** What giving up on a reservation found: nothing moved (or released now), or money already handed off by an earlier run. */
export type AbandonOutcome = 'NOTHING_MOVED' | 'HANDED_OFF';
