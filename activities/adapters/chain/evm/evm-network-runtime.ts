import type pg from 'pg';
import { createPublicClient, defineChain, getAddress, http } from 'viem';
import type { Address, Chain, HttpTransport, PrivateKeyAccount, PublicClient } from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import type { Clock } from '../../../../core/clock';
import type { Logger } from '../../../../core/logger';
import type { EvmNetwork } from '../../../../core/networks';
import type { FeePolicy } from './evm-fee-policy';
import { assertEvmNetworkConfig, DEFAULT_REPLACEMENT_BUMP_PERCENT, DEFAULT_TOKEN_TRANSFER_GAS_LIMIT } from './evm-network-config';
import type { EvmNetworkConfig } from './evm-network-config';

/** What the adapter's parts share: where transactions are stored, the time, and the log. */
export interface EvmAdapterDependencies {
  pool: pg.Pool;
  clock: Clock;
  log: Logger | undefined;
}

/** One configured network, ready to use. The key lives only inside `account`'s signing closures. */
export interface EvmNetworkRuntime {
  network: EvmNetwork;
  chainId: number;
  client: EvmClient;
  account: PrivateKeyAccount;
  /** The hot wallet's address in lower case, as stored. */
  address: string;
  requiredConfirmations: bigint;
  replaceAfterMs: number;
  usdcTokenAddress: Address | undefined;
  tokenTransferGasLimit: bigint;
  feePolicy: FeePolicy;
  /** The node's chain id, checked once before the first use. */
  chainChecked: Promise<void> | undefined;
}

const RPC_TIMEOUT_MS = 10_000;

export type EvmClient = PublicClient<HttpTransport, Chain>;

/** A network's client and hot wallet, from its configuration (checked here). */
export function runtimeOf(network: EvmNetwork, config: EvmNetworkConfig): EvmNetworkRuntime {
  assertEvmNetworkConfig(network, config);
  const account = privateKeyToAccount(config.hotWalletPrivateKey);
  return {
    network,
    chainId: config.chainId,
    client: evmClient(network, config.chainId, config.rpcUrl, RPC_TIMEOUT_MS),
    account,
    address: account.address.toLowerCase(),
    requiredConfirmations: BigInt(config.requiredConfirmations),
    replaceAfterMs: config.replaceAfterMs,
    usdcTokenAddress: config.usdcTokenAddress && getAddress(config.usdcTokenAddress),
    tokenTransferGasLimit: config.tokenTransferGasLimit ?? DEFAULT_TOKEN_TRANSFER_GAS_LIMIT,
    feePolicy: {
      maxFeePerGasCapWei: config.maxFeePerGasCapWei,
      replacementBumpPercent: config.replacementBumpPercent ?? DEFAULT_REPLACEMENT_BUMP_PERCENT,
    },
    chainChecked: undefined,
  };
}

/**
 * A network's JSON-RPC client. No caching: viem would otherwise answer getBlockNumber from a cache for seconds, and depth is
 * counted from it; viem's own retries cover a dropped connection, Temporal's the rest.
 */
export function evmClient(network: EvmNetwork, chainId: number, rpcUrl: string, timeoutMs: number): EvmClient {
  const chain = defineChain({
    id: chainId,
    name: network,
    nativeCurrency: { name: network === 'ethereum' ? 'Ether' : 'POL', symbol: network === 'ethereum' ? 'ETH' : 'POL', decimals: 18 },
    rpcUrls: { default: { http: [rpcUrl] } },
  });
  return createPublicClient({ chain, cacheTime: 0, transport: http(rpcUrl, { timeout: timeoutMs, retryCount: 2 }) });
}

/** The node must be on the configured chain, or its nonces, balances and receipts are another chain's. */
export async function checkChainId(runtime: EvmNetworkRuntime): Promise<void> {
  const chainId = await runtime.client.getChainId();
  if (chainId !== runtime.chainId) throw new Error(`the ${runtime.network} node has chain id ${chainId}, configured is ${runtime.chainId}`);
}
