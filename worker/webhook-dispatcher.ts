import type { Client } from '@temporalio/client';
import { webhookDispatcherContract } from '../contracts';
import type { WebhookDispatcherWorkflow } from '../contracts';
import type { Logger } from '../core/logger';

/** USE_EXISTING: every worker calls this on boot and one dispatcher is kept; one that ended is started afresh. */
export async function ensureWebhookDispatcher(client: Client, taskQueue: string, log: Logger): Promise<void> {
  const workflowId = webhookDispatcherContract.workflowId('');
  const handle = await client.workflow.start<WebhookDispatcherWorkflow>(webhookDispatcherContract.workflowType, {
    workflowId,
    taskQueue,
    args: [{}],
    workflowIdConflictPolicy: 'USE_EXISTING',
    staticSummary: 'Delivers webhook events from the outbox: signed, at least once, in order per operation',
  });
  log.info(`webhook dispatcher ${workflowId} running (run ${handle.firstExecutionRunId})`);
}
