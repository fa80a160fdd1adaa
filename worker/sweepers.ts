import type { Client } from '@temporalio/client';
import { evmSweeperContract, utxoSweeperContract } from '../contracts';
import type { Logger } from '../core/logger';
import { isEvmNetwork } from '../core/networks';
import type { Network } from '../core/networks';
import { ensurePerNetworkWorkflows } from './per-network-workflows';

/** One sweeper per network whose deposits this deployment sweeps, of its family's type (see ensurePerNetworkWorkflows). */
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
