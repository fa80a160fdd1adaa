/** EIP-1559 fees of one transaction, in wei per gas. */
export interface Eip1559Fees {
  maxFeePerGas: bigint;
  maxPriorityFeePerGas: bigint;
}

export interface FeePolicy {
  /** No transaction is signed with a higher maxFeePerGas: the bound on what a withdrawal may cost in fees. */
  maxFeePerGasCapWei: bigint;
  /** How much a replacement raises both fees over the attempt it replaces (default 25). */
  replacementBumpPercent: number;
}

/** The smallest raise of both fees nodes accept for a replacement (geth's and Hardhat's default price bump). */
export const MINIMUM_REPLACEMENT_BUMP_PERCENT = 10;

export class FeeCapExceededError extends Error {
  constructor(estimate: bigint, cap: bigint) {
    super(`the network asks a maxFeePerGas of ${estimate} wei, above the cap of ${cap} wei: not signing now`);
    this.name = 'FeeCapExceededError';
  }
}

export function assertFeePolicy(policy: FeePolicy): void {
  if (policy.maxFeePerGasCapWei <= 0n) throw new Error('maxFeePerGasCapWei must be positive');
  if (
    !Number.isInteger(policy.replacementBumpPercent) ||
    policy.replacementBumpPercent <= MINIMUM_REPLACEMENT_BUMP_PERCENT ||
    policy.replacementBumpPercent > 1000
  ) {
    throw new Error(`replacementBumpPercent must be an integer above ${MINIMUM_REPLACEMENT_BUMP_PERCENT} and at most 1000`);
  }
}

/** The node's estimate for a first attempt; refused above the cap (nothing is signed, a retry asks again). */
export function initialFees(estimate: Eip1559Fees, policy: FeePolicy): Eip1559Fees {
  if (estimate.maxFeePerGas > policy.maxFeePerGasCapWei) throw new FeeCapExceededError(estimate.maxFeePerGas, policy.maxFeePerGasCapWei);
  return { maxFeePerGas: estimate.maxFeePerGas, maxPriorityFeePerGas: minBigint(estimate.maxPriorityFeePerGas, estimate.maxFeePerGas) };
}

/**
 * Both fees raised by the policy's percentage, or to the current estimate if higher, bounded by the cap; undefined when the
 * cap leaves no room for the raise nodes require (the pending attempt keeps waiting).
 */
export function replacementFees(previous: Eip1559Fees, estimate: Eip1559Fees, policy: FeePolicy): Eip1559Fees | undefined {
  const maxFeePerGas = minBigint(
    maxBigint(raiseByPercent(previous.maxFeePerGas, policy.replacementBumpPercent), estimate.maxFeePerGas),
    policy.maxFeePerGasCapWei,
  );
  const maxPriorityFeePerGas = minBigint(
    maxBigint(raiseByPercent(previous.maxPriorityFeePerGas, policy.replacementBumpPercent), estimate.maxPriorityFeePerGas),
    maxFeePerGas,
  );
  const acceptable =
    maxFeePerGas >= raiseByPercent(previous.maxFeePerGas, MINIMUM_REPLACEMENT_BUMP_PERCENT) &&
    maxPriorityFeePerGas >= raiseByPercent(previous.maxPriorityFeePerGas, MINIMUM_REPLACEMENT_BUMP_PERCENT);
  return acceptable ? { maxFeePerGas, maxPriorityFeePerGas } : undefined;
}

/** value × (100 + percent) / 100, rounded up, so a raise of a small fee is never zero. */
export function raiseByPercent(value: bigint, percent: number): bigint {
  if (value < 0n) throw new Error('fees are never negative');
  const numerator = value * BigInt(100 + percent);
  return (numerator + 99n) / 100n;
}

function minBigint(a: bigint, b: bigint): bigint {
  return a < b ? a : b;
}

function maxBigint(a: bigint, b: bigint): bigint {
  return a > b ? a : b;
}
