import type { Client } from '@temporalio/client';
import { evmDepositWatcherContract } from '../contracts';
import type { EvmDepositNetwork } from '../contracts';
import type { Logger } from '../core/logger';
import { EVM_NETWORK_NAMES, UTXO_NETWORK_NAMES } from '../core/settings/declarations/rails';
import type { EvmNetworkSettings, UtxoNetworkSettings } from '../core/settings';
import type { Network, UtxoNetwork } from '../core/networks';
import { ensurePerNetworkWorkflows } from './per-network-workflows';

/** Every EVM network with an RPC URL is watched for deposits, on the same node as its withdrawals. */
export function watchedNetworks(evmNetworks: Readonly<Partial<Record<EvmDepositNetwork, EvmNetworkSettings>>>): EvmDepositNetwork[] {
  return EVM_NETWORK_NAMES.filter((network) => evmNetworks[network] !== undefined);
}

/** Every UTXO network with an RPC URL is watched: its hot wallet's coins and partners' deposits. */
export function watchedUtxoNetworks(utxoNetworks: Readonly<Partial<Record<UtxoNetwork, UtxoNetworkSettings>>>): UtxoNetwork[] {
  return UTXO_NETWORK_NAMES.filter((network) => utxoNetworks[network] !== undefined);
}

/** One deposit watcher per configured network, EVM or UTXO (see ensurePerNetworkWorkflows). */
export async function ensureEvmDepositWatchers(
  client: Client,
  taskQueue: string,
  networks: readonly Network[],
  log: Logger,
): Promise<void> {
  await ensurePerNetworkWorkflows(client, taskQueue, networks, log, {
    contract: evmDepositWatcherContract,
    name: 'deposit watcher',
    summary: (network) =>
      `Watches ${network} for deposits to partners' addresses: records them, credits them at their confirmations, follows reorganisations`,
  });
}
