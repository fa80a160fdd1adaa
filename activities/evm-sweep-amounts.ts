import type { Eip1559Fees } from './adapters/chain/evm/evm-fee-policy';

/** How much a sweep moves and how much gas it needs, in base units (wei, token units): pure, so each case is tested alone. */

export type NativeSweepValue = { kind: 'value'; value: bigint } | { kind: 'nothing' } | { kind: 'fees-too-high' };

/**
 * A native sweep moves what was credited, or what the address holds if that is less, minus the
 * most its gas can cost (gas limit × max fee; what the network charges below that stays behind as
 * dust). When nothing would be left: an address short of what was credited has nothing to sweep;
 * one that holds it all waits for lower fees.
 */
export function nativeSweepValue(input: { claimed: bigint; balance: bigint; gasLimit: bigint; fees: Eip1559Fees }): NativeSweepValue {
  const available = input.claimed < input.balance ? input.claimed : input.balance;
  const value = available - input.gasLimit * input.fees.maxFeePerGas;
  if (value > 0n) return { kind: 'value', value };
  return input.balance < input.claimed ? { kind: 'nothing' } : { kind: 'fees-too-high' };
}

/**
 * The gas a token sweep's stored transaction may cost (gas limit × its max fee), less what the
 * address holds of the native coin beyond `reserved` (deposits of it not yet swept: partners',
 * or in our custody below the minimum, never spent on gas). 0 when the address can pay already.
 */
export function gasTopUpNeeded(input: { gasLimit: bigint; maxFeePerGas: bigint; balance: bigint; reserved: bigint }): bigint {
  const needed = input.gasLimit * input.maxFeePerGas;
  const spare = input.balance > input.reserved ? input.balance - input.reserved : 0n;
  return spare >= needed ? 0n : needed - spare;
}
