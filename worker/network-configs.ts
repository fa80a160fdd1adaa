import type pg from 'pg';
import type { EvmNetworkConfig } from '../activities/adapters/chain/evm/evm-network-config';
import type { EvmChainIdentityGuard } from '../activities/adapters/chain/evm/evm-chain-identity';
import { UtxoChainAdapter } from '../activities/adapters/chain/utxo/utxo-chain.adapter';
import type { UtxoNetworkConfig } from '../activities/adapters/chain/utxo/utxo-chain.adapter';
import type { Clock } from '../core/clock';
import type { Logger } from '../core/logger';
import type { EvmNetwork, UtxoNetwork } from '../core/networks';
import type { EvmNetworkSettings, Settings } from '../core/settings';

/** What both workers (the general one and the sweeper) read of the chains' settings. */
export type ChainSettings = Partial<Pick<Settings, 'evmNetworks' | 'utxoNetworks'>>;

/** Each EVM network with an RPC URL, as `of` gives it to its users. */
export function perEvmNetwork<T>(settings: ChainSettings, of: (config: EvmNetworkSettings) => T): Partial<Record<EvmNetwork, T>> {
  const configured = Object.entries(settings.evmNetworks ?? {});
  return Object.fromEntries(configured.flatMap(([network, config]) => (config ? [[network, of(config)]] : [])));
}

/** As the adapters take them: withdrawals, deposits' sweeps and custody share them. */
export function evmNetworkConfigs(settings: ChainSettings): Partial<Record<EvmNetwork, EvmNetworkConfig>> {
  return perEvmNetwork(settings, (config) => ({
    rpcUrl: config.rpcUrl,
    chainId: config.chainId,
    hotWalletPrivateKey: config.hotWalletPrivateKey as `0x${string}`,
    requiredConfirmations: config.requiredConfirmations,
    replaceAfterMs: config.replaceAfterMs,
    ...(config.usdcTokenAddress ? { usdcTokenAddress: config.usdcTokenAddress as `0x${string}` } : {}),
    maxFeePerGasCapWei: config.maxFeePerGasCapWei,
    tokenTransferGasLimit: BigInt(config.tokenTransferGasLimit),
  }));
}

/** Each UTXO network with an RPC URL, as its adapter takes it. */
export function utxoNetworkConfigs(settings: ChainSettings): Partial<Record<UtxoNetwork, UtxoNetworkConfig>> {
  const configured = Object.entries(settings.utxoNetworks ?? {});
  return Object.fromEntries(configured.flatMap(([network, config]) => (config ? [[network, config]] : [])));
}

/** The UTXO networks with an RPC URL: one adapter sends their withdrawals and reads their blocks (coins, deposits). */
export function utxoAdapter(
  settings: ChainSettings,
  dependencies: { pool: pg.Pool; clock?: Clock; log: Logger; identityGuard: EvmChainIdentityGuard },
): UtxoChainAdapter | undefined {
  const networks = utxoNetworkConfigs(settings);
  if (Object.keys(networks).length === 0) return undefined;
  const { clock, ...rest } = dependencies;
  return new UtxoChainAdapter({ ...rest, networks, ...(clock ? { clock } : {}) });
}
