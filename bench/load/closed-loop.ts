import { performance } from 'node:perf_hooks';
import { quantile } from './run-result';
import type { RunResult } from './run-result';

export interface ClosedLoop<Prepared> {
  callers: number;
  durationMs: number;
  signal: AbortSignal;
  /**
   * Go on past the duration until this many operations succeeded (slow operations, such as a
   * month of 100k history entries, would otherwise leave a run with too few latencies), up to
   * OVERTIME_LIMIT_MS more.
   */
  minCount?: number;
  /** Untimed work before each call (e.g. fetching a rate lock): it takes wall time, not latency. */
  prepare?: (caller: number) => Promise<Prepared>;
  /**
   * The timed operation; a throw counts as an error. `mark(name)` records the time from the
   * call's start to a point within it (a withdrawal's early answer before it settles): the run
   * reports each mark's p50 and p99 beside the whole call's.
   */
  call: (caller: number, prepared: Prepared, mark: (name: string) => void) => Promise<void>;
}

/** How far past its duration a run may go to reach minCount. */
const OVERTIME_LIMIT_MS = 30_000;

/** After a failure a caller waits this long, so a broken target is not hammered in a tight loop. */
const ERROR_PAUSE_MS = 50;

/**
 * N callers, each starting its next operation when the last one ends, until the duration is up
 * (operations under way then are finished and counted) and at least minCount succeeded. Throughput is per second of wall time
 * from the first start to the last end.
 */
export async function runClosedLoop<Prepared = undefined>(loop: ClosedLoop<Prepared>): Promise<RunResult> {
  const latenciesMs: number[] = [];
  const marksMs = new Map<string, number[]>();
  let errors = 0;
  let firstError: string | undefined;
  const startedAt = performance.now();
  const deadline = startedAt + loop.durationMs;
  const hardDeadline = deadline + OVERTIME_LIMIT_MS;
  const goOn = () => {
    const now = performance.now();
    if (loop.signal.aborted || now >= hardDeadline) return false;
    return now < deadline || latenciesMs.length < (loop.minCount ?? 0);
  };
  const caller = async (index: number): Promise<void> => {
    while (goOn()) {
      try {
        const prepared = loop.prepare ? await loop.prepare(index) : (undefined as Prepared);
        const callStartedAt = performance.now();
        const marked: [string, number][] = [];
        await loop.call(index, prepared, (name) => marked.push([name, performance.now() - callStartedAt]));
        latenciesMs.push(performance.now() - callStartedAt);
        // Only calls that succeeded, as for the whole call's latency.
        for (const [name, ms] of marked) {
          const values = marksMs.get(name);
          if (values) values.push(ms);
          else marksMs.set(name, [ms]);
        }
      } catch (error) {
        errors += 1;
        firstError ??= error instanceof Error ? error.message : String(error);
        await new Promise((resolve) => setTimeout(resolve, ERROR_PAUSE_MS));
      }
    }
  };
  await Promise.all(Array.from({ length: loop.callers }, (_, index) => caller(index)));
  const durationMs = performance.now() - startedAt;
  latenciesMs.sort((a, b) => a - b);
  const marks = Object.fromEntries(
    [...marksMs].map(([name, values]) => {
      values.sort((a, b) => a - b);
      return [name, { p50Ms: quantile(values, 0.5), p99Ms: quantile(values, 0.99) }];
    }),
  );
  return {
    ...(marksMs.size > 0 ? { marks } : {}),
    count: latenciesMs.length,
    errors,
    ...(firstError === undefined ? {} : { firstError }),
    durationMs,
    perSecond: latenciesMs.length / (durationMs / 1000),
    p50Ms: quantile(latenciesMs, 0.5),
    p99Ms: quantile(latenciesMs, 0.99),
  };
}
