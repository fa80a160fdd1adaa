import type { Client } from '@temporalio/client';
import { evmSweeperContract } from '../contracts';
import type { EvmDepositNetwork } from '../contracts';
import type { Logger } from '../core/logger';
import { ensurePerNetworkWorkflows } from './per-network-workflows';

/** One sweeper per EVM network whose deposit addresses this deployment sweeps (see ensurePerNetworkWorkflows). */
export async function ensureEvmSweepers(
  client: Client,
  taskQueue: string,
  networks: readonly EvmDepositNetwork[],
  log: Logger,
): Promise<void> {
  await ensurePerNetworkWorkflows(client, taskQueue, networks, log, {
    contract: evmSweeperContract,
    name: 'sweeper',
    summary: (network) => `Sweeps credited deposits on ${network} from partners' deposit addresses to the hot wallet`,
  });
}
