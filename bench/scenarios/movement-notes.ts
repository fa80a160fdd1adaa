import type { PairOutcome, SideSummary } from './pairs';
import type { ShapeCheck } from './shape-check';
import { largestGaps } from './step-times';
import type { MovementOutcome } from './workflow.scenarios';

/** A money movement's lines in the table's notes: its shape check, where its time goes, its CPU per operation. */
export function movementNotes(name: string, outcome: MovementOutcome): string[] {
  const stepTimes = stepTimesNote(name, outcome);
  return [shapeNote(name, outcome.shape), ...(stepTimes ? [stepTimes] : []), cpuNote(name, outcome)];
}

/** One line for the table's notes. */
function shapeNote(name: string, check: ShapeCheck | undefined): string {
  if (!check) return `${name}: no shape check (no run of both sides succeeded)`;
  if (check.same)
    return `${name}: same shape checked (${check.projectWorkflowId} against ${check.ceilingWorkflowId}): ${check.commands.length} commands alike`;
  return `${name}: SHAPES DIFFER (${check.projectWorkflowId} against ${check.ceilingWorkflowId}): ${check.differences.join('; ')}`;
}

/**
 * Where the time goes (median of each side's last runs): the workflow from its start to its end
 * (and to its early answer) beside what its caller saw (p50, all runs), the
 * difference being what happens outside the workflow (the API, for the project); then the steps
 * where the project spends most beyond its ceiling.
 */
function stepTimesNote(name: string, outcome: MovementOutcome): string | undefined {
  const times = outcome.stepTimes;
  if (!times) return undefined;
  const ms = (value: number | undefined) => `${Math.round(value ?? Number.NaN)} ms`;
  const gaps = largestGaps(times, 3).map((gap) => `${gap.step} ${ms(gap.projectMs)} against ${ms(gap.ceilingMs)}`);
  const early = (side: 'project' | 'ceiling') =>
    times[side]['start to early answer'] === undefined
      ? ''
      : `early answer ${ms(outcome[side].marks.answered?.p50Ms)} (workflow ${ms(times[side]['start to early answer'])}), `;
  const side = (which: 'project' | 'ceiling') =>
    `${early(which)}end ${ms(outcome[which].p50Ms)} (workflow ${ms(times[which]['start to end'])})`;
  return (
    `${name}: caller p50 against the workflow's own time (median of ${times.samples.project}), project: ${side('project')}; ` +
    `ceiling: ${side('ceiling')}; steps most beyond the ceiling: ${gaps.join(', ')}`
  );
}

/**
 * CPU milliseconds per operation of each process, each side over its recorded runs: the API, the
 * worker, Postgres, the Temporal dev server, and the ceiling's worker. A process the side does not
 * use shows what it does by itself meanwhile.
 */
function cpuNote(name: string, outcome: PairOutcome): string {
  const side = (summary: SideSummary) => {
    const count = summary.runs.reduce((total, run) => total + run.count, 0);
    const seconds: Record<string, number> = {};
    for (const run of summary.runs)
      for (const [process, used] of Object.entries(run.cpuSeconds)) seconds[process] = (seconds[process] ?? 0) + used;
    return Object.entries(seconds)
      .map(([process, used]) => `${process} ${count > 0 ? Math.round((used * 1000) / count) : '–'}`)
      .join(', ');
  };
  return `${name}: CPU ms per operation, project: ${side(outcome.project)}; ceiling: ${side(outcome.ceiling)}`;
}
