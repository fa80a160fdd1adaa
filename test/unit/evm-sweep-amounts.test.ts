import { gasTopUpNeeded, nativeSweepValue } from '../../activities/evm-sweep-amounts';

const fees = { maxFeePerGas: 10n, maxPriorityFeePerGas: 1n };

describe('what a native sweep moves', () => {
  it('the credited amount minus the most its gas can cost', () => {
    expect(nativeSweepValue({ claimed: 1_000_000n, balance: 1_500_000n, gasLimit: 21_000n, fees })).toEqual({
      kind: 'value',
      value: 790_000n,
    });
  });

  it('only what the address holds when that is less than what was credited', () => {
    expect(nativeSweepValue({ claimed: 1_000_000n, balance: 600_000n, gasLimit: 21_000n, fees })).toEqual({
      kind: 'value',
      value: 390_000n,
    });
  });

  it('nothing when an address short of its credits cannot pay the gas', () => {
    expect(nativeSweepValue({ claimed: 1_000_000n, balance: 210_000n, gasLimit: 21_000n, fees })).toEqual({ kind: 'nothing' });
    expect(nativeSweepValue({ claimed: 1_000_000n, balance: 0n, gasLimit: 21_000n, fees })).toEqual({ kind: 'nothing' });
  });

  it('waits for lower fees when the address holds everything but the gas would eat it', () => {
    expect(nativeSweepValue({ claimed: 210_000n, balance: 300_000n, gasLimit: 21_000n, fees })).toEqual({ kind: 'fees-too-high' });
  });
});

describe("a token sweep's gas top-up", () => {
  it('the whole gas when the address holds nothing beyond what is reserved', () => {
    expect(gasTopUpNeeded({ gasLimit: 100_000n, maxFeePerGas: 10n, balance: 500n, reserved: 500n })).toBe(1_000_000n);
    expect(gasTopUpNeeded({ gasLimit: 100_000n, maxFeePerGas: 10n, balance: 400n, reserved: 500n })).toBe(1_000_000n);
  });

  it('only what the spare coins (dust of earlier top-ups) do not cover', () => {
    expect(gasTopUpNeeded({ gasLimit: 100_000n, maxFeePerGas: 10n, balance: 300_500n, reserved: 500n })).toBe(700_000n);
  });

  it('none when the address can pay already', () => {
    expect(gasTopUpNeeded({ gasLimit: 100_000n, maxFeePerGas: 10n, balance: 2_000_000n, reserved: 500n })).toBe(0n);
  });
});
