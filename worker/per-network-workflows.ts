import type { Client } from '@temporalio/client';
import type { Network } from '../core/networks';
import type { Logger } from '../core/logger';

/** A long-running workflow kept once per network (the deposit watcher, the sweeper). */
export interface PerNetworkWorkflow {
  contract: { workflowType: string; workflowId(network: Network): string };
  /** What the log calls it. */
  name: string;
  /** What the Temporal UI shows for it. */
  summary(network: Network): string;
}

/** USE_EXISTING: every worker calls this on boot and one per network is kept; one that ended resumes from Postgres. */
export async function ensurePerNetworkWorkflows(
  client: Client,
  taskQueue: string,
  networks: readonly Network[],
  log: Logger,
  kind: PerNetworkWorkflow,
): Promise<void> {
  for (const network of networks) {
    const workflowId = kind.contract.workflowId(network);
    const handle = await client.workflow.start(kind.contract.workflowType, {
      workflowId,
      taskQueue,
      args: [{ network }],
      workflowIdConflictPolicy: 'USE_EXISTING',
      staticSummary: kind.summary(network),
    });
    log.info(`${kind.name} ${workflowId} running (run ${handle.firstExecutionRunId})`);
  }
}
