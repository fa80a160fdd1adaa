import { isAddress, isHex } from 'viem';
import type { Address, Hex } from 'viem';
import { assertFeePolicy } from './evm-fee-policy';

/** One EVM network the adapter sends on. A plain object: the worker builds it from its settings. */
export interface EvmNetworkConfig {
  /** JSON-RPC over HTTP. */
  rpcUrl: string;
  /** Signed into every transaction (EIP-155) and checked against the node's own before the first use. */
  chainId: number;
  /** The hot wallet's secp256k1 key (0x + 64 hex digits). Never logged, never put into an error. */
  hotWalletPrivateKey: Hex;
  /** Blocks on top of and including the transaction's before it counts (1: mined at all). */
  requiredConfirmations: number;
  /** How long an attempt may stay unmined before it is replaced at the same nonce with higher fees. */
  replaceAfterMs: number;
  /** The USDC token contract; without it usdc withdrawals on this network are refused. */
  usdcTokenAddress?: Address;
  /** No transaction is signed with a higher maxFeePerGas (wei per gas). */
  maxFeePerGasCapWei: bigint;
  /** Each replacement raises both fees by this much over the one it replaces (default 25, more than 10). */
  replacementBumpPercent?: number;
  /**
   * Gas limit of a token transfer (default 100 000; USDC uses 35 000 to 65 000). Fixed, not estimated: an estimate fails when
   * the token would refuse, while a signed transfer that reverts is the chain's definite answer, which releases the funds.
   */
  tokenTransferGasLimit?: bigint;
}

export const DEFAULT_REPLACEMENT_BUMP_PERCENT = 25;
export const DEFAULT_TOKEN_TRANSFER_GAS_LIMIT = 100_000n;
/** A plain value transfer to an account without code costs exactly this (a contract destination needs more, and reverts). */
export const NATIVE_TRANSFER_GAS_LIMIT = 21_000n;

/** Refuses a config that could not work, without ever naming the key in the message. */
export function assertEvmNetworkConfig(network: string, config: EvmNetworkConfig): void {
  const fail = (reason: string): never => {
    throw new Error(`EVM config of ${network}: ${reason}`);
  };
  if (!/^https?:\/\//.test(config.rpcUrl)) fail('rpcUrl must be an http(s) URL');
  if (!Number.isSafeInteger(config.chainId) || config.chainId <= 0) fail('chainId must be a positive integer');
  if (!isHex(config.hotWalletPrivateKey, { strict: true }) || config.hotWalletPrivateKey.length !== 66) {
    fail('the hot wallet key must be 0x followed by 64 hex digits');
  }
  if (!Number.isInteger(config.requiredConfirmations) || config.requiredConfirmations < 1 || config.requiredConfirmations > 1000) {
    fail('requiredConfirmations must be an integer from 1 to 1000');
  }
  if (!Number.isFinite(config.replaceAfterMs) || config.replaceAfterMs < 0) fail('replaceAfterMs must be a non-negative number');
  if (config.usdcTokenAddress !== undefined && !isAddress(config.usdcTokenAddress, { strict: false }))
    fail('usdcTokenAddress is not an address');
  if (config.tokenTransferGasLimit !== undefined && config.tokenTransferGasLimit < NATIVE_TRANSFER_GAS_LIMIT) {
    fail(`tokenTransferGasLimit must be at least ${NATIVE_TRANSFER_GAS_LIMIT}`);
  }
  assertFeePolicy({
    maxFeePerGasCapWei: config.maxFeePerGasCapWei,
    replacementBumpPercent: config.replacementBumpPercent ?? DEFAULT_REPLACEMENT_BUMP_PERCENT,
  });
}
