/**
 * What a workflow run asked of Temporal, read from its history in JSON form (History.toJSON()):
 * the recorded histories' names and replay test (test/support/history-recorder.ts), and the
 * bench's same-shape ceilings, which must make the commands the money movements make
 * (bench/ceiling/same-shape.workflow.ts).
 */

/**
 * The events a workflow's commands produced (each names the workflow task that completed with
 * it), as `EVENT_TYPE detail`: activity types, marker names with the local activity or patch
 * they record. Events that only say what happened to a command (started, completed, fired) are
 * left out: they vary with timing, the commands do not.
 */
export function commandsOf(history: Record<string, unknown>): string[] {
  return eventsOf(history).flatMap((event) => {
    const attributes = attributesOf(event);
    if (!attributes || !('workflowTaskCompletedEventId' in attributes)) return [];
    const type = String(event.eventType).replace(/^EVENT_TYPE_/, '');
    return [[type, ...commandDetail(attributes)].join(' ')];
  });
}

/** A regular activity as its workflow scheduled it: the options Temporal enforces (JSON durations, e.g. `{ seconds: "30" }`). */
export interface ScheduledActivity {
  activityType: string;
  options: Record<string, unknown>;
}

/** The activity options Temporal holds a run to; the rest of a scheduling (ids, queue, input) varies per run. */
const SCHEDULING_OPTIONS = ['scheduleToCloseTimeout', 'scheduleToStartTimeout', 'startToCloseTimeout', 'heartbeatTimeout', 'retryPolicy'];

/** Every regular activity the run scheduled, in order, with its timeouts and retry policy. */
export function scheduledActivitiesOf(history: Record<string, unknown>): ScheduledActivity[] {
  return eventsOf(history).flatMap((event) => {
    const attributes = event.activityTaskScheduledEventAttributes as Record<string, unknown> | undefined;
    if (!attributes) return [];
    const activityType = String((attributes.activityType as { name?: string } | undefined)?.name);
    return [{ activityType, options: Object.fromEntries(SCHEDULING_OPTIONS.map((name) => [name, attributes[name] ?? null])) }];
  });
}

function eventsOf(history: Record<string, unknown>): Record<string, unknown>[] {
  return (history.events ?? []) as Record<string, unknown>[];
}

function attributesOf(event: Record<string, unknown>): Record<string, unknown> | undefined {
  return Object.entries(event).find(([key]) => key.endsWith('EventAttributes'))?.[1] as Record<string, unknown> | undefined;
}

function commandDetail(attributes: Record<string, unknown>): string[] {
  const activityType = (attributes.activityType as { name?: string } | undefined)?.name;
  if (activityType) return [activityType];
  const markerName = attributes.markerName as string | undefined;
  if (!markerName) return [];
  const details = (attributes.details ?? {}) as Record<string, { payloads?: { data?: string }[] }>;
  // A local activity's marker carries its type; a patch's marker its id.
  const recorded = Object.values(details).flatMap((field) => field.payloads?.map((payload) => jsonOf(payload.data)) ?? []);
  const what = recorded.map((value) => value?.activity_type ?? value?.id).find((name) => typeof name === 'string');
  return what ? [markerName, what] : [markerName];
}

function jsonOf(base64: string | undefined): Record<string, unknown> | undefined {
  try {
    const value: unknown = JSON.parse(Buffer.from(base64 ?? '', 'base64').toString('utf8'));
    return typeof value === 'object' && value !== null ? (value as Record<string, unknown>) : undefined;
  } catch {
    return undefined;
  }
}
