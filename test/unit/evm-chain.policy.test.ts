import { parseGwei } from 'viem';
import { toBaseUnits, transferKind } from '../../activities/adapters/chain/evm/evm-amounts';
import { CURRENCY_SCALE } from '../../core/currencies';
import {
  FeeCapExceededError,
  assertFeePolicy,
  initialFees,
  raiseByPercent,
  replacementFees,
} from '../../activities/adapters/chain/evm/evm-fee-policy';
import type { FeePolicy } from '../../activities/adapters/chain/evm/evm-fee-policy';
import { assertEvmNetworkConfig } from '../../activities/adapters/chain/evm/evm-network-config';
import type { EvmNetworkConfig } from '../../activities/adapters/chain/evm/evm-network-config';

const POLICY: FeePolicy = { maxFeePerGasCapWei: parseGwei('100'), replacementBumpPercent: 25 };

describe('toBaseUnits', () => {
  it('converts exact decimals to the integer the chain counts, for each currency', () => {
    expect(toBaseUnits('1', CURRENCY_SCALE.eth)).toBe(10n ** 18n);
    expect(toBaseUnits('0.000000000000000001', CURRENCY_SCALE.eth)).toBe(1n);
    expect(toBaseUnits('1.234567890123456789', CURRENCY_SCALE.pol)).toBe(1_234_567_890_123_456_789n);
    expect(toBaseUnits('12.345678', CURRENCY_SCALE.usdc)).toBe(12_345_678n);
    expect(toBaseUnits('12.3456780000', CURRENCY_SCALE.usdc)).toBe(12_345_678n);
    expect(toBaseUnits('99999999999999999999.5', CURRENCY_SCALE.usdc)).toBe(99_999_999_999_999_999_999_500_000n);
  });

  it('refuses what would need rounding instead of sending another amount', () => {
    expect(() => toBaseUnits('0.0000001', CURRENCY_SCALE.usdc)).toThrow(/more than 6 decimal places/);
    expect(() => toBaseUnits('1.0000000000000000001', CURRENCY_SCALE.eth)).toThrow(/more than 18 decimal places/);
  });

  it.each(['0', '0.000', '-1', '+1', '1e6', '1.', '.5', ' 1', '1,5', '0x10', '', '01', 'NaN', 'Infinity'])('refuses %j', (amount) => {
    expect(() => toBaseUnits(amount, CURRENCY_SCALE.eth)).toThrow();
  });
});

describe('transferKind', () => {
  it('sends the network coin as value and usdc as a token transfer, and nothing else', () => {
    expect(transferKind('eth', 'ethereum')).toEqual({ kind: 'native', currency: 'eth' });
    expect(transferKind('pol', 'polygon')).toEqual({ kind: 'native', currency: 'pol' });
    expect(transferKind('usdc', 'ethereum')).toEqual({ kind: 'token', currency: 'usdc' });
    expect(transferKind('usdc', 'polygon')).toEqual({ kind: 'token', currency: 'usdc' });
    expect(() => transferKind('pol', 'ethereum')).toThrow(/not sent on ethereum/);
    expect(() => transferKind('btc', 'ethereum')).toThrow(/not sent on ethereum/);
  });
});

describe('fees', () => {
  it('takes the node estimate for a first attempt, and signs nothing above the cap', () => {
    const estimate = { maxFeePerGas: parseGwei('30'), maxPriorityFeePerGas: parseGwei('2') };
    expect(initialFees(estimate, POLICY)).toEqual(estimate);
    expect(() => initialFees({ maxFeePerGas: parseGwei('101'), maxPriorityFeePerGas: 1n }, POLICY)).toThrow(FeeCapExceededError);
  });

  it('raises both fees of a replacement by the policy percentage, rounded up', () => {
    const previous = { maxFeePerGas: 1_000_000_001n, maxPriorityFeePerGas: 3n };
    expect(replacementFees(previous, { maxFeePerGas: 1n, maxPriorityFeePerGas: 1n }, POLICY)).toEqual({
      maxFeePerGas: 1_250_000_002n,
      maxPriorityFeePerGas: 4n,
    });
  });

  it('follows the network when it asks more than the raise', () => {
    const previous = { maxFeePerGas: parseGwei('10'), maxPriorityFeePerGas: parseGwei('1') };
    const estimate = { maxFeePerGas: parseGwei('40'), maxPriorityFeePerGas: parseGwei('3') };
    expect(replacementFees(previous, estimate, POLICY)).toEqual(estimate);
  });

  it('stops at the cap, and does not replace when the cap leaves less than the raise nodes accept', () => {
    const previous = { maxFeePerGas: parseGwei('85'), maxPriorityFeePerGas: parseGwei('2') };
    expect(replacementFees(previous, previous, POLICY)).toEqual({ maxFeePerGas: parseGwei('100'), maxPriorityFeePerGas: parseGwei('2.5') });
    const nearCap = { maxFeePerGas: parseGwei('95'), maxPriorityFeePerGas: parseGwei('2') };
    expect(replacementFees(nearCap, nearCap, POLICY)).toBeUndefined();
  });

  it('never lets the priority fee exceed the max fee', () => {
    const previous = { maxFeePerGas: parseGwei('90'), maxPriorityFeePerGas: parseGwei('90') };
    expect(replacementFees(previous, previous, { ...POLICY, maxFeePerGasCapWei: parseGwei('200') })).toEqual({
      maxFeePerGas: parseGwei('112.5'),
      maxPriorityFeePerGas: parseGwei('112.5'),
    });
  });

  it('raiseByPercent rounds up and refuses negative fees', () => {
    expect(raiseByPercent(0n, 25)).toBe(0n);
    expect(raiseByPercent(1n, 10)).toBe(2n);
    expect(raiseByPercent(100n, 25)).toBe(125n);
    expect(() => raiseByPercent(-1n, 25)).toThrow();
  });

  it('refuses a policy whose raise nodes would refuse, or without a cap', () => {
    expect(() => assertFeePolicy({ ...POLICY, replacementBumpPercent: 10 })).toThrow();
    expect(() => assertFeePolicy({ ...POLICY, replacementBumpPercent: 12.5 })).toThrow();
    expect(() => assertFeePolicy({ ...POLICY, maxFeePerGasCapWei: 0n })).toThrow();
    expect(() => assertFeePolicy(POLICY)).not.toThrow();
  });
});

describe('assertEvmNetworkConfig', () => {
  const key = `0x${'11'.repeat(32)}` as const;
  const valid: EvmNetworkConfig = {
    rpcUrl: 'http://127.0.0.1:8545',
    chainId: 31337,
    hotWalletPrivateKey: key,
    requiredConfirmations: 12,
    replaceAfterMs: 180_000,
    maxFeePerGasCapWei: parseGwei('200'),
  };

  it('accepts a complete config', () => {
    expect(() => assertEvmNetworkConfig('ethereum', valid)).not.toThrow();
  });

  it.each<[string, Partial<EvmNetworkConfig>]>([
    ['rpcUrl', { rpcUrl: 'ws://node' }],
    ['chainId', { chainId: 0 }],
    ['key', { hotWalletPrivateKey: '0x1234' }],
    ['confirmations', { requiredConfirmations: 0 }],
    ['replaceAfterMs', { replaceAfterMs: -1 }],
    ['usdcTokenAddress', { usdcTokenAddress: '0x123' }],
    ['tokenTransferGasLimit', { tokenTransferGasLimit: 20_999n }],
  ])('refuses a bad %s, without naming the key', (_name, override) => {
    let message = '';
    try {
      assertEvmNetworkConfig('ethereum', { ...valid, ...override });
    } catch (error) {
      message = String(error);
    }
    expect(message).toMatch(/EVM config of ethereum/);
    expect(message).not.toContain('11'.repeat(32));
  });
});
