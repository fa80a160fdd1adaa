import type { Client } from '@temporalio/client';
import { evmSweeperContract } from '../contracts';
import type { Logger } from '../core/logger';
import type { Network } from '../core/networks';
import { ensurePerNetworkWorkflows } from './per-network-workflows';

/** One sweeper per network whose deposits this deployment sweeps, EVM and UTXO (see ensurePerNetworkWorkflows). */
export async function ensureEvmSweepers(client: Client, taskQueue: string, networks: readonly Network[], log: Logger): Promise<void> {
  await ensurePerNetworkWorkflows(client, taskQueue, networks, log, {
    contract: evmSweeperContract,
    name: 'sweeper',
    summary: (network) => `Sweeps credited deposits on ${network} from partners' deposit addresses to the hot wallet`,
  });
}
