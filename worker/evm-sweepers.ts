import type { Client } from '@temporalio/client';
import { evmSweeperContract } from '../contracts';
import type { EvmDepositNetwork } from '../contracts';
import type { Logger } from '../core/logger';
import { ensurePerNetworkWorkflows } from './per-network-workflows';

/**
 * Starts the sweeper of each EVM network whose deposit addresses this deployment sweeps (an RPC
 * URL and EVM_DEPOSIT_SEED on the worker) unless it already runs (USE_EXISTING: every worker calls
 * this on boot, and one sweeper per network is kept). One that ended is started afresh; what it
 * works from is in Postgres.
 */
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
