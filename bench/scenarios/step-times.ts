import type { Client } from '@temporalio/client';
import { temporal } from '@temporalio/proto';

/**
 * Where a workflow's time goes, read from its history: each workflow task's wait in the queue and
 * its run (with the local activities it ran), each regular activity's wait and run, and the time
 * to the early answer and to the end. The same
 * steps for a project workflow and its same-shape ceiling, side by side, show per step what our
 * code adds (docs/benchmarks.md).
 */
export interface StepTimes {
  /** Step name → median milliseconds over the sampled runs. */
  project: Record<string, number>;
  ceiling: Record<string, number>;
  samples: { project: number; ceiling: number };
}

export async function stepTimesOf(client: Client, projectIds: readonly string[], ceilingIds: readonly string[]): Promise<StepTimes> {
  const [project, ceiling] = await Promise.all([medians(client, projectIds), medians(client, ceilingIds)]);
  return { project, ceiling, samples: { project: projectIds.length, ceiling: ceilingIds.length } };
}

/** The steps where the project's median exceeds the ceiling's most, largest first. */
export function largestGaps(times: StepTimes, count: number): Array<{ step: string; projectMs: number; ceilingMs: number }> {
  return Object.entries(times.project)
    .filter(([step]) => !step.startsWith('start to'))
    .map(([step, projectMs]) => ({ step, projectMs, ceilingMs: times.ceiling[step] ?? 0 }))
    .sort((a, b) => b.projectMs - b.ceilingMs - (a.projectMs - a.ceilingMs))
    .slice(0, count);
}

async function medians(client: Client, workflowIds: readonly string[]): Promise<Record<string, number>> {
  const samples = new Map<string, number[]>();
  for (const workflowId of workflowIds) {
    const history = temporal.api.history.v1.History.fromObject(await client.workflow.getHandle(workflowId).fetchHistory()).toJSON();
    for (const { step, ms } of stepsOf(history)) samples.set(step, [...(samples.get(step) ?? []), ms]);
  }
  return Object.fromEntries(
    [...samples].map(([step, values]) => {
      values.sort((a, b) => a - b);
      return [step, Math.round((values[Math.floor((values.length - 1) / 2)] ?? Number.NaN) * 10) / 10];
    }),
  );
}

type HistoryEvent = Record<string, unknown> & { eventId?: string; eventType?: string; eventTime?: Timestamp };
type Timestamp = { seconds?: string | number; nanos?: number } | null | undefined;

function milliseconds(time: Timestamp): number {
  return Number(time?.seconds ?? 0) * 1000 + (time?.nanos ?? 0) / 1e6;
}

/**
 * One run's steps, in order; a step that happens twice (a retried task) is named twice and the
 * later one counts. A local activity runs inside its workflow task: the task is named with it.
 * (Its marker's own times cannot be used: its schedule time is not before its completion.)
 */
export function stepsOf(history: Record<string, unknown>): Array<{ step: string; ms: number }> {
  const events = (history.events ?? []) as HistoryEvent[];
  const byId = new Map(events.map((event) => [String(event.eventId), event]));
  const timeOf = (id: unknown) => milliseconds(byId.get(String(id))?.eventTime);
  const startedAt = milliseconds(events[0]?.eventTime);
  const localActivitiesOf = localActivitiesByTask(events);
  const steps: Array<{ step: string; ms: number }> = [];
  let task = 0;
  for (const event of events) {
    const at = milliseconds(event.eventTime);
    const type = String(event.eventType).replace(/^EVENT_TYPE_/, '');
    const attributes = (Object.entries(event).find(([key]) => key.endsWith('EventAttributes'))?.[1] ?? {}) as Record<string, unknown>;
    const activityOf = (scheduledId: unknown) => {
      const scheduled = byId.get(String(scheduledId))?.activityTaskScheduledEventAttributes as
        { activityType?: { name?: string } } | undefined;
      return scheduled?.activityType?.name ?? 'activity';
    };
    switch (type) {
      case 'WORKFLOW_TASK_STARTED':
        task += 1;
        steps.push({ step: `workflow task ${task}: queued`, ms: at - timeOf(attributes.scheduledEventId) });
        break;
      case 'WORKFLOW_TASK_COMPLETED': {
        const local = localActivitiesOf.get(String(event.eventId));
        const ran = local ? `ran, with local ${local.join(', ')}` : 'ran';
        steps.push({ step: `workflow task ${task}: ${ran}`, ms: at - timeOf(attributes.startedEventId) });
        break;
      }
      case 'ACTIVITY_TASK_STARTED':
        steps.push({ step: `${activityOf(attributes.scheduledEventId)}: queued`, ms: at - timeOf(attributes.scheduledEventId) });
        break;
      case 'ACTIVITY_TASK_COMPLETED':
        steps.push({ step: `${activityOf(attributes.scheduledEventId)}: ran`, ms: at - timeOf(attributes.startedEventId) });
        break;
      case 'WORKFLOW_EXECUTION_UPDATE_COMPLETED':
        steps.push({ step: 'start to early answer', ms: at - startedAt });
        break;
      case 'WORKFLOW_EXECUTION_COMPLETED':
        steps.push({ step: 'start to end', ms: at - startedAt });
        break;
      default:
    }
  }
  return steps;
}

/** The local activities each workflow task ran (their markers name the task's completed event), by that event's id. */
function localActivitiesByTask(events: readonly HistoryEvent[]): Map<string, string[]> {
  const byTask = new Map<string, string[]>();
  for (const event of events) {
    const attributes = event.markerRecordedEventAttributes as Record<string, unknown> | undefined;
    if (attributes?.markerName !== 'core_local_activity') continue;
    const data = (attributes.details as Record<string, { payloads?: { data?: string }[] }> | undefined)?.data?.payloads?.[0]?.data;
    let activityType = 'local activity';
    try {
      activityType =
        (JSON.parse(Buffer.from(data ?? '', 'base64').toString('utf8')) as { activity_type?: string }).activity_type ?? activityType;
    } catch {
      // A marker we cannot read is still a local activity of its task.
    }
    const task = String(attributes.workflowTaskCompletedEventId);
    byTask.set(task, [...(byTask.get(task) ?? []), activityType]);
  }
  return byTask;
}
