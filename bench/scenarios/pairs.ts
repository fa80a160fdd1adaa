import type { MikroORM } from '@mikro-orm/postgresql';
import type { Client } from '@temporalio/client';
import type { Logger } from '../../core/logger';
import type { Lifecycle } from '../lifecycle';
import type { RunResult } from '../load/run-result';
import { cpuSeconds, treeCpuSeconds } from '../processes';
import type { BenchChild } from '../processes';
import type { Profile } from '../profile';
import type { BenchStack } from '../stack';

/** A run with the CPU seconds each child process used during it. */
export interface MeasuredRun extends RunResult {
  label: string;
  cpuSeconds: Record<string, number>;
}

/** One side over its runs: means of the runs' figures (latencies of runs that have some), each run kept. */
export interface SideSummary {
  perSecond: number;
  p50Ms: number;
  p99Ms: number;
  /** Each mark's latencies (ClosedLoop's `mark`), means over the runs that have it. */
  marks: Record<string, { p50Ms: number; p99Ms: number }>;
  errors: number;
  runs: MeasuredRun[];
}

export interface PairOutcome {
  project: SideSummary;
  ceiling: SideSummary;
}

/** What every scenario gets: the running stack, the bench's own ORM and Temporal client, and the run's settings. */
export interface BenchContext {
  lifecycle: Lifecycle;
  log: Logger;
  profile: Profile;
  stack: BenchStack;
  /** On the project's database: fixtures through the project's own services. */
  orm: MikroORM;
  /** The project's workflows, with the service's payload encryption (it refuses plaintext). */
  client: Client;
  /** The empty-workflow ceilings, whose payloads are plain (their worker has no codec). */
  ceilingClient: Client;
  /** The child processes whose CPU time each run records. */
  processes: readonly BenchChild[];
}

/** The same context, also recording the CPU time of a scenario's own children (its bare Koa). */
export function withProcesses(context: BenchContext, extra: readonly BenchChild[]): BenchContext {
  return { ...context, processes: [...context.processes, ...extra] };
}

/** A load of the given length (milliseconds). */
export type Load = (durationMs: number) => Promise<RunResult>;

/**
 * Project and ceiling alternated in the same run, A B A B (`profile.rounds` pairs), after one
 * unrecorded warm-up of each side, so drift over the run (caches, autovacuum, a neighbour's
 * load) falls on both sides alike.
 */
export async function runPair(context: BenchContext, name: string, project: Load, ceiling: Load, durationMs: number): Promise<PairOutcome> {
  const { profile } = context;
  await measure(context, `${name}: project warm-up`, project, profile.warmupMs);
  await measure(context, `${name}: ceiling warm-up`, ceiling, profile.warmupMs);
  const projectRuns: MeasuredRun[] = [];
  const ceilingRuns: MeasuredRun[] = [];
  for (let round = 1; round <= profile.rounds; round += 1) {
    projectRuns.push(await measure(context, `${name}: project ${round}/${profile.rounds}`, project, durationMs));
    ceilingRuns.push(await measure(context, `${name}: ceiling ${round}/${profile.rounds}`, ceiling, durationMs));
  }
  return { project: summarise(projectRuns), ceiling: summarise(ceilingRuns) };
}

/** One recorded run, with the CPU time of each child process; stops the bench between runs if asked. */
export async function measure(context: BenchContext, label: string, load: Load, durationMs: number): Promise<MeasuredRun> {
  context.lifecycle.checkpoint();
  const before = cpuOf(context);
  const result = await load(durationMs);
  const after = cpuOf(context);
  context.lifecycle.checkpoint();
  const cpu = Object.fromEntries(
    Object.entries(after).map(([name, seconds]) => [name, Math.round((seconds - (before[name] ?? seconds)) * 100) / 100]),
  );
  const errors = result.errors > 0 ? `, ${result.errors} errors (${result.firstError ?? 'no message'})` : '';
  context.log.info(
    `${label}: ${result.perSecond.toFixed(1)}/s, p50 ${result.p50Ms.toFixed(1)} ms, p99 ${result.p99Ms.toFixed(1)} ms, ${result.count} ok${errors}`,
  );
  return { ...result, label, cpuSeconds: cpu };
}

export function summarise(runs: readonly MeasuredRun[]): SideSummary {
  const mean = (pick: (run: MeasuredRun) => number | undefined) => {
    const values = runs.map(pick).filter((value): value is number => value !== undefined && Number.isFinite(value));
    return values.length === 0 ? Number.NaN : values.reduce((sum, value) => sum + value, 0) / values.length;
  };
  const markNames = [...new Set(runs.flatMap((run) => Object.keys(run.marks ?? {})))];
  return {
    perSecond: mean((run) => run.perSecond),
    p50Ms: mean((run) => run.p50Ms),
    p99Ms: mean((run) => run.p99Ms),
    marks: Object.fromEntries(
      markNames.map((name) => [name, { p50Ms: mean((run) => run.marks?.[name]?.p50Ms), p99Ms: mean((run) => run.marks?.[name]?.p99Ms) }]),
    ),
    errors: runs.reduce((sum, run) => sum + run.errors, 0),
    runs: [...runs],
  };
}

/** The children's CPU time, and the servers' (Postgres with its backends, the Temporal dev server). */
function cpuOf(context: BenchContext): Record<string, number> {
  const seconds: Record<string, number> = {};
  for (const child of context.processes) {
    const used = cpuSeconds(child.pid);
    if (used !== null) seconds[child.name] = used;
  }
  for (const [name, pid] of Object.entries(context.stack.servers())) {
    const used = pid === undefined ? null : treeCpuSeconds(pid);
    if (used !== null) seconds[name] = used;
  }
  return seconds;
}
