import type { AttemptRecord } from '../client';
import type { OperationLog } from '../load';
import type { FaultRecord } from '../nemesis';
import { FAULT_KINDS } from '../schedule';
import type { FaultKind } from '../schedule';
import { ANOMALY_KINDS } from './anomalies';
import type { Anomaly, AnomalyKind } from './anomalies';

/**
 * The table per fault kind, from the clients' own log and the nemesis's record of what it did:
 * how many were injected, how many operations were under way during one (from first request to
 * final state), what every HTTP attempt during one came to (answered 2xx/4xx, 503, no answer:
 * connection error or timeout, any other 5xx), how long after each fault's end until the first
 * request started after it was answered again, and the anomalies of the operations it touched.
 * The row "none" is the same for the stretches without any fault.
 */

export type RowKind = FaultKind | 'none';

export interface KindRow {
  kind: RowKind;
  injected: number;
  operations: number;
  attempts: number;
  answered: number;
  unavailable: number;
  noAnswer: number;
  serverErrors: number;
  recoveryMs: number[];
  /** Faults after whose end no request was answered before the load stopped. */
  unrecovered: number;
  anomalies: Record<AnomalyKind, number>;
}

interface Interval {
  from: number;
  to: number;
}

const overlaps = (a: Interval, b: Interval) => a.from < b.to && a.to > b.from;

export function availabilityRows(input: {
  faults: readonly FaultRecord[];
  attempts: readonly AttemptRecord[];
  operations: readonly OperationLog[];
  anomalies: readonly Anomaly[];
  /** When each operation was final, by id (else the end of its last request counts). */
  finalAt: ReadonlyMap<string, number>;
  loadEndedAt: number;
}): KindRow[] {
  const faults = input.faults.map((fault) => ({ ...fault, span: { from: fault.startedAt, to: fault.endedAt ?? input.loadEndedAt } }));
  const lifetime = (operation: OperationLog): Interval => ({
    from: operation.startedAt,
    to: (operation.operationId ? input.finalAt.get(operation.operationId) : undefined) ?? operation.endedAt ?? input.loadEndedAt,
  });
  const kindsOver = (span: Interval): Set<RowKind> => {
    const kinds = new Set<RowKind>(faults.filter((fault) => overlaps(fault.span, span)).map((fault) => fault.kind));
    if (kinds.size === 0) kinds.add('none');
    return kinds;
  };
  const rows = new Map<RowKind, KindRow>([...FAULT_KINDS, 'none' as const].map((kind) => [kind, emptyRow(kind)]));
  for (const fault of faults) rows.get(fault.kind)!.injected += 1;
  for (const attempt of input.attempts) {
    for (const kind of kindsOver({ from: attempt.startedAt, to: attempt.endedAt })) {
      const row = rows.get(kind)!;
      row.attempts += 1;
      if (attempt.outcome === 'answered') row.answered += 1;
      else if (attempt.outcome === '503') row.unavailable += 1;
      else if (attempt.outcome === 'server-error') row.serverErrors += 1;
      else row.noAnswer += 1;
    }
  }
  const kindsOfOperation = new Map<number, Set<RowKind>>();
  for (const operation of input.operations) {
    if (operation.status === 'shed') continue;
    const kinds = kindsOver(lifetime(operation));
    kindsOfOperation.set(operation.op, kinds);
    for (const kind of kinds) rows.get(kind)!.operations += 1;
  }
  for (const found of input.anomalies) {
    if (found.op === undefined) continue;
    for (const kind of kindsOfOperation.get(found.op) ?? []) rows.get(kind)!.anomalies[found.kind] += 1;
  }
  const answeredStarts = input.attempts.filter((attempt) => attempt.outcome === 'answered').sort((a, b) => a.startedAt - b.startedAt);
  for (const fault of faults) {
    if (fault.endedAt === undefined) continue;
    const first = answeredStarts.find((attempt) => attempt.startedAt >= fault.endedAt!);
    const row = rows.get(fault.kind)!;
    if (first) row.recoveryMs.push(first.endedAt - fault.endedAt);
    else row.unrecovered += 1;
  }
  return [...rows.values()];
}

function emptyRow(kind: RowKind): KindRow {
  return {
    kind,
    injected: 0,
    operations: 0,
    attempts: 0,
    answered: 0,
    unavailable: 0,
    noAnswer: 0,
    serverErrors: 0,
    recoveryMs: [],
    unrecovered: 0,
    anomalies: Object.fromEntries(ANOMALY_KINDS.map((kind) => [kind, 0])) as Record<AnomalyKind, number>,
  };
}

export function percentile(values: readonly number[], share: number): number | undefined {
  if (values.length === 0) return undefined;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil(share * sorted.length) - 1)];
}
