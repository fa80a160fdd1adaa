import { CURRENCY_SCALE } from '../../../../core/currencies';
import type { Currency } from '../../../../core/currencies';
import { Decimal } from '../../../../core/money';
import type { Lock, OperationLog } from '../load';
import { isWithdrawal } from '../operations';
import type { SimulatedPartner, WithdrawalCurrency } from '../partners';
import { anomaly } from './anomalies';
import type { Anomaly } from './anomalies';
import type { ApiView, HistoryEntry } from './api-state';
import { checkChainDeposits } from './deposit-audit';
import type { DepositExpectation } from './deposit-audit';

/**
 * Money as the clients know it against money as the API shows it, per partner, to the last
 * decimal. From the client's own log: what was deposited, what each accepted operation asked for,
 * the fee the API quoted, the lock's rates (an exchange's credit is computed here, by DESIGN.md's
 * formula, never read back); from the API: each operation's final status, its history entry and
 * the balances. Every entry the history shows must be an operation some client was answered 2xx
 * about (or a setup deposit, or the fee kept from such a withdrawal), once; every accepted
 * operation must be there.
 */

const HISTORY_TYPE: Readonly<Record<OperationLog['kind'], string>> = {
  exchange: 'exchange',
  'partner-withdrawal': 'cryptoWithdrawal',
  'user-withdrawal': 'cryptoWithdrawal',
  'sepa-transfer': 'sepaTransfer',
};

/** What an exchange credits: amount × rate(from) × (100 − fee%) ÷ (rate(to) × 100), rounded down to the scale of `to`. */
export function creditedAmount(amount: string, lock: Lock, from: Currency, to: Currency): Decimal {
  const rateFrom = lock.rates[from];
  const rateTo = lock.rates[to];
  if (rateFrom === undefined || rateTo === undefined) throw new Error(`lock ${lock.id} has no rate for ${from} or ${to}`);
  const value = new Decimal(amount).times(rateFrom).times(new Decimal(100).minus(lock.feePercentage));
  return value.dividedBy(new Decimal(rateTo).times(100)).toDecimalPlaces(CURRENCY_SCALE[to], Decimal.ROUND_DOWN);
}

export function checkMoney(input: {
  partners: readonly SimulatedPartner[];
  operations: readonly OperationLog[];
  fees: Readonly<Record<WithdrawalCurrency, string>>;
  view: ApiView;
  /** The deposits the run sent on chain, with what each must come to. */
  chainDeposits: readonly DepositExpectation[];
}): Anomaly[] {
  const anomalies: Anomaly[] = [];
  const accepted = input.operations.filter((operation) => operation.operationId !== undefined);
  // Two keys answered with one operation: a retry of one became the other's, or ids collide.
  const byId = new Map<string, OperationLog>();
  for (const operation of accepted) {
    const other = byId.get(operation.operationId!);
    if (other)
      anomalies.push(
        anomaly('doubled', `ops ${other.op} and ${operation.op} were both answered with ${operation.operationId}`, { op: operation.op }),
      );
    byId.set(operation.operationId!, operation);
  }
  for (const partner of input.partners) {
    anomalies.push(
      ...checkPartner(
        partner,
        accepted.filter((operation) => operation.partner === partner.index),
        byId,
        input,
      ),
    );
  }
  return anomalies;
}

function checkPartner(
  partner: SimulatedPartner,
  accepted: readonly OperationLog[],
  byId: ReadonlyMap<string, OperationLog>,
  input: { fees: Readonly<Record<WithdrawalCurrency, string>>; view: ApiView; chainDeposits: readonly DepositExpectation[] },
): Anomaly[] {
  const anomalies: Anomaly[] = [];
  const about = { partner: partner.index };
  const entries = input.view.history.get(partner.index) ?? [];
  const expected = new Map<string, Decimal>();
  const add = (currency: string, amount: Decimal | string) =>
    expected.set(currency, (expected.get(currency) ?? new Decimal(0)).plus(amount));
  for (const [currency, amount] of Object.entries(partner.deposits)) add(currency, amount);
  for (const expectation of input.chainDeposits)
    if (expectation.deposit.partner === partner.index && expectation.outcome === 'credited')
      add(expectation.deposit.currency, expectation.deposit.amount);

  const seen = new Map<string, HistoryEntry>();
  const deposits: HistoryEntry[] = [];
  for (const entry of entries) {
    if (entry.withdrawalId !== undefined) {
      // The network fee kept from a withdrawal whose transaction failed on chain: it must be one of ours, unsuccessful.
      const withdrawal = byId.get(entry.withdrawalId);
      if (!withdrawal)
        anomalies.push(
          anomaly('phantom', `a kept fee ${entry.id} for withdrawal ${entry.withdrawalId}, which no client was answered about`, about),
        );
      else if (entry.status === 'SUCCESSFUL') add(entry.currency, entry.amount);
      continue;
    }
    if (entry.type === 'sepaDeposit' || entry.type === 'cryptoDeposit') {
      deposits.push(entry);
      continue;
    }
    if (seen.has(entry.id)) anomalies.push(anomaly('doubled', `history shows ${entry.id} twice`, about));
    seen.set(entry.id, entry);
    const operation = byId.get(entry.id);
    if (!operation || operation.partner !== partner.index) {
      // Money is moving or moved for an operation no client of this partner was answered 2xx about.
      if (entry.status !== 'UNSUCCESSFUL')
        anomalies.push(
          anomaly(
            'phantom',
            `history shows ${entry.type} ${entry.id} (${entry.status}, ${entry.amount} ${entry.currency}) that no client was answered about`,
            about,
          ),
        );
    }
  }
  const chain = checkChainDeposits(partner.index, deposits, input.chainDeposits);
  anomalies.push(...chain.anomalies);
  anomalies.push(
    ...checkDeposits(
      partner,
      deposits.filter((entry) => !chain.explained.has(entry.id)),
    ),
  );

  for (const operation of accepted) {
    const entry = seen.get(operation.operationId!);
    const at = { op: operation.op, partner: partner.index };
    if (!entry) {
      anomalies.push(
        anomaly('lost', `${operation.kind} ${operation.operationId} was answered ${operation.status} but is not in the history`, at),
      );
      continue;
    }
    if (entry.type !== HISTORY_TYPE[operation.kind])
      anomalies.push(anomaly('wrong-state', `${operation.operationId} shows as ${entry.type}`, at));
    if (entry.status !== 'SUCCESSFUL') continue;
    const wrong = (what: string, shown: string, meant: Decimal) =>
      anomalies.push(
        anomaly(
          'wrong-balance',
          `${operation.kind} ${operation.operationId}: ${what} ${shown}, the client's request makes it ${meant.toFixed()}`,
          at,
        ),
      );
    if (isWithdrawal(operation.kind)) {
      const debit = new Decimal(operation.amount).plus(input.fees[operation.currency as WithdrawalCurrency]);
      add(operation.currency, debit.negated());
      if (!new Decimal(entry.amount).equals(debit.negated())) wrong('history amount', entry.amount, debit.negated());
    } else if (operation.kind === 'sepa-transfer') {
      add('eur', new Decimal(operation.amount).negated());
      if (!new Decimal(entry.amount).equals(new Decimal(operation.amount).negated()))
        wrong('history amount', entry.amount, new Decimal(operation.amount).negated());
    } else {
      const credited = creditedAmount(operation.amount, operation.lock!, operation.currency, operation.currencyTo!);
      add(operation.currency, new Decimal(operation.amount).negated());
      add(operation.currencyTo!, credited);
      if (!new Decimal(entry.amount).equals(credited)) wrong('credited', entry.amount, credited);
      if (entry.amountFrom === undefined || !new Decimal(entry.amountFrom).equals(new Decimal(operation.amount).negated())) {
        wrong('debited', String(entry.amountFrom), new Decimal(operation.amount).negated());
      }
    }
  }

  const balances = input.view.balances.get(partner.index);
  if (!balances) return anomalies;
  for (const [currency, amount] of Object.entries(balances)) {
    const meant = expected.get(currency) ?? new Decimal(0);
    if (!new Decimal(amount).equals(meant)) {
      anomalies.push(
        anomaly(
          'wrong-balance',
          `partner ${partner.index} ${currency}: the API shows ${amount}, deposits and the answered operations make ${meant.toFixed()} (off by ${new Decimal(amount).minus(meant).toFixed()})`,
          about,
        ),
      );
    }
  }
  return anomalies;
}

/** Exactly the setup's deposits, each once, beside those the run sent on chain. */
function checkDeposits(partner: SimulatedPartner, deposits: readonly HistoryEntry[]): Anomaly[] {
  const shown = deposits.map((entry) => `${entry.currency}:${new Decimal(entry.amount).toFixed()}:${entry.status}`).sort();
  const made = Object.entries(partner.deposits)
    .map(([currency, amount]) => `${currency}:${new Decimal(amount).toFixed()}:SUCCESSFUL`)
    .sort();
  if (JSON.stringify(shown) === JSON.stringify(made)) return [];
  return [
    anomaly('phantom', `partner ${partner.index}: deposits shown ${shown.join(', ')}; made ${made.join(', ')}`, { partner: partner.index }),
  ];
}

/** Accepted operations not final within the bound, by the API's word. */
export function checkFinal(accepted: readonly OperationLog[], view: ApiView, boundMs: number): Anomaly[] {
  return accepted
    .filter((operation) => !view.finalAt.has(operation.operationId!))
    .map((operation) =>
      anomaly(
        'stuck',
        `${operation.kind} ${operation.operationId} was not final ${Math.round(boundMs / 1000)} s after the nemesis stopped`,
        { op: operation.op },
      ),
    );
}
