import { checkChainDeposits } from '../chaos/support/checker/deposit-audit';
import type { DepositExpectation, DepositOutcome } from '../chaos/support/checker/deposit-audit';
import type { HistoryEntry } from '../chaos/support/checker/api-state';
import { depositAmount } from '../chaos/support/deposits';
import type { ChainDepositLog } from '../chaos/support/deposits';
import { Random } from '../chaos/support/random';
import { Decimal } from '../../core/money';

describe("the chaos run's chain deposits", () => {
  it('draws amounts on the right side of the minimum, all different, within the currency’s decimals', () => {
    const random = Random.stream(5, 'amounts');
    const seen = new Set<string>();
    for (let n = 1; n <= 2000; n += 1) {
      const currency = n % 2 === 0 ? 'eth' : 'usdc';
      const minimum = currency === 'eth' ? '0.0005' : '5';
      const below = n % 7 === 0;
      const amount = depositAmount(currency, minimum, below, n, random);
      expect(new Decimal(amount).greaterThan(0)).toBe(true);
      expect(new Decimal(amount).lessThan(minimum)).toBe(below);
      expect(new Decimal(amount).decimalPlaces()).toBeLessThanOrEqual(currency === 'eth' ? 9 : 6);
      expect(seen.has(`${currency}:${amount}`)).toBe(false);
      seen.add(`${currency}:${amount}`);
    }
  });

  const deposit = (n: number, amount: string): ChainDepositLog => ({
    n,
    partner: 0,
    currency: 'eth',
    amount,
    belowMinimum: false,
    to: '0x0000000000000000000000000000000000000001',
    hash: `0x${String(n).padStart(64, '0')}`,
    sentAt: 0,
  });
  const expect1 = (n: number, amount: string, outcome: DepositOutcome): DepositExpectation => ({ deposit: deposit(n, amount), outcome });
  const entry = (id: string, amount: string, status: string): HistoryEntry => ({
    id,
    type: 'cryptoDeposit',
    amount,
    currency: 'eth',
    status,
  });

  it('passes each deposit credited once, refused ones recorded, and an orphaned sighting beside a credit', () => {
    const { anomalies, explained } = checkChainDeposits(
      0,
      [
        entry('a', '0.001', 'SUCCESSFUL'),
        entry('b', '0.001', 'UNSUCCESSFUL'),
        entry('c', '0.0001', 'UNSUCCESSFUL'),
        entry('s', '100', 'SUCCESSFUL'),
      ],
      [expect1(1, '0.001', 'credited'), expect1(2, '0.0001', 'refused'), expect1(3, '0.002', 'absent')],
    );
    expect(anomalies).toEqual([]);
    expect([...explained].sort()).toEqual(['a', 'b', 'c']);
  });

  it('finds a credit lost, doubled, or made for what is not on chain, and a deposit left open', () => {
    const kinds = (entries: HistoryEntry[], expectations: DepositExpectation[]) =>
      checkChainDeposits(0, entries, expectations).anomalies.map((found) => found.kind);
    expect(kinds([], [expect1(1, '0.001', 'credited')])).toEqual(['lost']);
    expect(kinds([entry('a', '0.001', 'SUCCESSFUL'), entry('b', '0.001', 'SUCCESSFUL')], [expect1(1, '0.001', 'credited')])).toEqual([
      'doubled',
    ]);
    expect(kinds([entry('a', '0.002', 'SUCCESSFUL')], [expect1(3, '0.002', 'absent')])).toEqual(['phantom']);
    expect(kinds([], [expect1(2, '0.0001', 'refused')])).toEqual(['lost']);
    expect(kinds([entry('a', '0.002', 'IN_PROGRESS')], [expect1(3, '0.002', 'absent')])).toEqual(['stuck']);
  });
});
