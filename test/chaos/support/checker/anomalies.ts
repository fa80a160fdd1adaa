/**
 * What the checker can find. The first five are the issue's: an accepted operation the system
 * lost, money moved twice, money moved for an operation no client was answered about (phantom),
 * an operation that never reached a final state or a hold never released (stuck), and a balance or
 * amount off by anything at all. The rest say where else the system broke its word.
 */
export const ANOMALY_KINDS = [
  'lost',
  'doubled',
  'phantom',
  'stuck',
  'wrong-balance',
  /** A final state that contradicts what happened (a completed travel rule that failed, a bank's answer the API does not show). */
  'wrong-state',
  /** An answer other than 2xx, 4xx or 503 (a 500 leaks a fault to partners). */
  'unexpected-answer',
  /** The ledger check or the service's own reconciliation found something. */
  'ledger',
] as const;
export type AnomalyKind = (typeof ANOMALY_KINDS)[number];

export interface Anomaly {
  kind: AnomalyKind;
  /** The operation (the history's op number) it is about, when it is about one. */
  op?: number;
  partner?: number;
  detail: string;
}

export function anomaly(kind: AnomalyKind, detail: string, about: { op?: number; partner?: number } = {}): Anomaly {
  return { kind, detail, ...about };
}
