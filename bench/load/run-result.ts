/** One timed run of one side of a scenario. */
export interface RunResult {
  /** Operations that succeeded. */
  count: number;
  /** Operations that failed (non-2xx answers, connection errors, thrown errors). */
  errors: number;
  /** The first error's message, when there was one, so a broken run says why. */
  firstError?: string;
  durationMs: number;
  /** Successful operations per second of wall time. */
  perSecond: number;
  p50Ms: number;
  p99Ms: number;
  /** Latencies to named points within the operation (see ClosedLoop's `mark`), when it has some. */
  marks?: Record<string, { p50Ms: number; p99Ms: number }>;
}

/** The q-quantile (0..1) of latencies sorted ascending, by the nearest-rank method; NaN when there are none. */
export function quantile(sortedMs: readonly number[], q: number): number {
  if (sortedMs.length === 0) return Number.NaN;
  const index = Math.min(sortedMs.length - 1, Math.max(0, Math.ceil(q * sortedMs.length) - 1));
  return sortedMs[index] ?? Number.NaN;
}
