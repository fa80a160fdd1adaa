import type { Client } from '@temporalio/client';
import { evmSweepContract, evmSweeperContract, utxoSweeperContract } from '../contracts';
import type { EvmSweepInput, EvmSweepWorkflow } from '../contracts';
import type { Logger } from '../core/logger';
import { isEvmNetwork } from '../core/networks';
import type { Network } from '../core/networks';
import { ensurePerNetworkWorkflows } from './per-network-workflows';

const SWEEP_WORKFLOW_TYPES = [evmSweeperContract.workflowType, utxoSweeperContract.workflowType, evmSweepContract.workflowType];

/**
 * One sweeper per network whose deposits this deployment sweeps, of its family's type (see ensurePerNetworkWorkflows), on
 * the sweeper's own task queue. Sweep workflows running on another queue (started before the sweeper had one of its own)
 * are moved here first: nothing there may sign for them, and each resumes from Postgres.
 */
export async function ensureSweepers(
  client: Client,
  sweeper: { taskQueue: string; pollIntervalMs: number },
  networks: readonly Network[],
  log: Logger,
): Promise<void> {
  const { taskQueue } = sweeper;
  await moveSweepsHere(client, sweeper, networks, log);
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

/** `evm-sweep-<network>-<address>-<currency>` (evmSweepKey): a sweep's input, but for the sweeper's poll interval. */
const EVM_SWEEP_ID = /^evm-sweep-(ethereum|polygon)-(0x[0-9a-f]{40})-([a-z]+)$/;

/** Whether a sweep workflow's id is one of these networks' (a sweeper's, or a sweep's: evmSweepKey starts with the network). */
function ofNetworks(workflowId: string, networks: readonly Network[]): boolean {
  return networks.some(
    (network) =>
      workflowId === evmSweeperContract.workflowId(network) ||
      workflowId === utxoSweeperContract.workflowId(network) ||
      workflowId.startsWith(evmSweepContract.workflowId(`${network}-`)),
  );
}

/**
 * Ends each sweep workflow of these networks running on another task queue; a sweep of one address is started again here
 * at once (the caller starts the sweepers).
 */
async function moveSweepsHere(
  client: Client,
  sweeper: { taskQueue: string; pollIntervalMs: number },
  networks: readonly Network[],
  log: Logger,
): Promise<void> {
  const { taskQueue } = sweeper;
  const types = SWEEP_WORKFLOW_TYPES.map((type) => `'${type}'`).join(', ');
  const query = `WorkflowType IN (${types}) AND ExecutionStatus = 'Running' AND TaskQueue != '${taskQueue.replace(/'/g, "''")}'`;
  for await (const execution of client.workflow.list({ query })) {
    if (!ofNetworks(execution.workflowId, networks)) continue;
    await client.workflow.getHandle(execution.workflowId, execution.runId).terminate(`sweeps run on the sweeper's task queue ${taskQueue}`);
    log.info(`moved ${execution.workflowId} from task queue ${execution.taskQueue} to ${taskQueue}`);
    // A sweep in flight is not due again (findDueSweeps), so it is started here.
    const sweep = EVM_SWEEP_ID.exec(execution.workflowId);
    if (execution.type !== evmSweepContract.workflowType || !sweep) continue;
    const args: EvmSweepInput = {
      network: sweep[1] as EvmSweepInput['network'],
      address: sweep[2]!,
      currency: sweep[3] as EvmSweepInput['currency'],
      pollIntervalMs: sweeper.pollIntervalMs,
    };
    await client.workflow.start<EvmSweepWorkflow>(evmSweepContract.workflowType, {
      workflowId: execution.workflowId,
      taskQueue,
      args: [args],
      workflowIdConflictPolicy: 'USE_EXISTING',
    });
  }
}
