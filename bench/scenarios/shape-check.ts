import { isDeepStrictEqual } from 'node:util';
import type { Client } from '@temporalio/client';
import { temporal } from '@temporalio/proto';
import { commandsOf, scheduledActivitiesOf } from '../../dev/workflow-commands';

/** Whether a project run and a same-shape ceiling run of the same bench asked Temporal for the same things. */
export interface ShapeCheck {
  same: boolean;
  projectWorkflowId: string;
  ceilingWorkflowId: string;
  /** The project run's commands (see dev/workflow-commands.ts), and the ceiling's where they differ. */
  commands: string[];
  ceilingCommands?: string[];
  /** What differs, in words: commands, or a regular activity's timeouts or retry policy. */
  differences: string[];
}

/**
 * The same-shape ceiling stays a fair floor only while it makes the commands the money movement
 * makes: each run of the bench compares the history of one of its project workflows with one of
 * its ceiling's (commands in order, local activities by their markers, and every regular
 * activity's timeouts and retry policy). Local activities' options are not in a history: those
 * test/workflows/same-shape.test.ts compares.
 */
export async function checkShape(client: Client, projectWorkflowId: string, ceilingWorkflowId: string): Promise<ShapeCheck> {
  const [project, ceiling] = await Promise.all([historyOf(client, projectWorkflowId), historyOf(client, ceilingWorkflowId)]);
  const commands = commandsOf(project);
  const ceilingCommands = commandsOf(ceiling);
  const differences: string[] = [];
  if (!isDeepStrictEqual(commands, ceilingCommands)) differences.push('commands differ');
  const scheduled = scheduledActivitiesOf(project);
  const ceilingScheduled = scheduledActivitiesOf(ceiling);
  scheduled.forEach((activity, index) => {
    const other = ceilingScheduled[index];
    if (other && other.activityType === activity.activityType && !isDeepStrictEqual(other.options, activity.options)) {
      differences.push(
        `${activity.activityType}: options differ (${JSON.stringify(activity.options)} against ${JSON.stringify(other.options)})`,
      );
    }
  });
  return {
    same: differences.length === 0,
    projectWorkflowId,
    ceilingWorkflowId,
    commands,
    ...(differences.length > 0 ? { ceilingCommands } : {}),
    differences,
  };
}

/** A closed run's history in its JSON form, as the recorded histories hold it. */
async function historyOf(client: Client, workflowId: string): Promise<Record<string, unknown>> {
  const history = await client.workflow.getHandle(workflowId).fetchHistory();
  return temporal.api.history.v1.History.fromObject(history).toJSON();
}
