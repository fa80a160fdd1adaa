import type { Client } from '@temporalio/client';
import { temporal } from '@temporalio/proto';
import type { Backlog } from './admission';

/** A read of the backlog is a quick RPC; past this it counts as failed (admission then admits). */
const READ_DEADLINE_MS = 2_000;

/** The workflow task queue's backlog (DescribeTaskQueue stats): how long a new operation would wait for a worker. */
export function temporalBacklogReader(client: Client, taskQueue: string): () => Promise<Backlog> {
  return async () => {
    const response = await client.withDeadline(Date.now() + READ_DEADLINE_MS, () =>
      client.workflowService.describeTaskQueue({
        namespace: client.options.namespace,
        taskQueue: { name: taskQueue, kind: temporal.api.enums.v1.TaskQueueKind.TASK_QUEUE_KIND_NORMAL },
        taskQueueType: temporal.api.enums.v1.TaskQueueType.TASK_QUEUE_TYPE_WORKFLOW,
        reportStats: true,
      }),
    );
    const age = response.stats?.approximateBacklogAge;
    return {
      ageMs: Number(age?.seconds ?? 0) * 1000 + Math.floor((age?.nanos ?? 0) / 1e6),
      count: Number(response.stats?.approximateBacklogCount ?? 0),
    };
  };
}
