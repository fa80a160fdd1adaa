import type { Client } from '@temporalio/client';
import { WorkflowNotFoundError } from '@temporalio/client';
import { evmSweepContract, evmSweeperContract, utxoSweeperContract } from '../contracts';
import type { Logger } from '../core/logger';
import { isEvmNetwork } from '../core/networks';
import type { Network } from '../core/networks';
import { ensurePerNetworkWorkflows } from './per-network-workflows';

const SWEEP_WORKFLOW_TYPES = [evmSweeperContract.workflowType, utxoSweeperContract.workflowType, evmSweepContract.workflowType];

/** One sweeper per network whose deposits this deployment sweeps, of its family's type (see ensurePerNetworkWorkflows), on the sweeper's task queue. */
export async function ensureSweepers(client: Client, taskQueue: string, networks: readonly Network[], log: Logger): Promise<void> {
  const summary = (network: Network) => `Sweeps credited deposits on ${network} from partners' deposit addresses to the hot wallet`;
  await ensurePerNetworkWorkflows(client, taskQueue, networks.filter(isEvmNetwork), log, {
    contract: evmSweeperContract,
    name: 'sweeper',
    summary,
  });
  await ensurePerNetworkWorkflows(
    client,
    taskQueue,
    networks.filter((network) => !isEvmNetwork(network)),
    log,
    { contract: utxoSweeperContract, name: 'sweeper', summary },
  );
}

/**
 * The general worker's boot: sweep workflows on its own task queue (started before the sweeper had one of its own) can
 * never run there, since no deposit key is here. They are ended; the sweeper starts its sweepers on its queue, and each
 * sweep in flight again from its row in Postgres (startDueEvmSweeps).
 */
export async function endSweepsOnQueue(client: Client, taskQueue: string, log: Logger): Promise<void> {
  const types = SWEEP_WORKFLOW_TYPES.map((type) => `'${type}'`).join(', ');
  const query = `WorkflowType IN (${types}) AND ExecutionStatus = 'Running' AND TaskQueue = '${taskQueue.replace(/'/g, "''")}'`;
  for await (const execution of client.workflow.list({ query })) {
    try {
      await client.workflow.getHandle(execution.workflowId).terminate(`sweeps run on the sweeper's own task queue, not ${taskQueue}`);
      log.info(`ended ${execution.workflowId} on task queue ${taskQueue}: the sweeper takes it up on its own`);
    } catch (error) {
      // Ended meanwhile (continued as new, or by another worker's boot): nothing left to do.
      if (!(error instanceof WorkflowNotFoundError)) throw error;
    }
  }
}
