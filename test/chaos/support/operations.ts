import { regtestSegwitAddress } from '../../support/utxo-payments';
import { getAddress, toHex } from 'viem';
import type { Currency } from '../../../core/currencies';
import { REJECTED_IBAN } from './chaos-settings';
import { exactNumber } from './client';
import type { JsonBody } from './client';
import type { SimulatedPartner, WithdrawalCurrency } from './partners';
import type { Random } from './random';

/**
 * What the simulated partners send, each operation drawn from its own stream of the seed (so an
 * operation's kind, amounts and destination replay whatever the timing): exchanges, withdrawals for
 * the partner and for one of its users (eth or usdc on ethereum, btc on bitcoin, to a fresh address each), SEPA
 * transfers (some to the bank's rejecting IBAN). A few withdrawals are above the travel-rule
 * threshold to a non-custodial wallet: they wait for data that operators complete, or not.
 */

export type OperationKind = 'exchange' | 'partner-withdrawal' | 'user-withdrawal' | 'sepa-transfer';
export const OPERATION_KINDS: readonly OperationKind[] = ['exchange', 'partner-withdrawal', 'user-withdrawal', 'sepa-transfer'];

const KIND_WEIGHTS: Readonly<Record<OperationKind, number>> = {
  exchange: 30,
  'partner-withdrawal': 20,
  'user-withdrawal': 20,
  'sepa-transfer': 30,
};

/** The share of withdrawals that wait for travel-rule data (operators work them one at a time). */
const TRAVEL_RULE_SHARE = 0.05;
/** The share of SEPA transfers sent to the IBAN the simulated bank rejects. */
const REJECTED_SHARE = 0.05;

export const EXCHANGE_PAIRS: ReadonlyArray<readonly [Currency, Currency]> = [
  ['eur', 'eth'],
  ['eth', 'eur'],
  ['eur', 'usdc'],
  ['usdc', 'eur'],
  ['eur', 'btc'],
  ['btc', 'eur'],
];

/** An amount of the currency in [min, max] with `decimals` digits after the point, as exact text. */
function amountOf(random: Random, min: number, max: number, decimals: number): string {
  const unit = 10 ** decimals;
  const units = random.int(Math.ceil(min * unit), Math.floor(max * unit));
  const text = String(units).padStart(decimals + 1, '0');
  return decimals === 0 ? text : `${text.slice(0, -decimals)}.${text.slice(-decimals)}`;
}

const EXCHANGE_AMOUNTS: Readonly<Partial<Record<Currency, [number, number, number]>>> = {
  eur: [10, 1000, 2],
  eth: [0.001, 0.5, 6],
  usdc: [10, 1000, 2],
  btc: [0.0001, 0.01, 8],
};

/** One operation as its client means it, before any answer. */
export interface PlannedOperation {
  op: number;
  kind: OperationKind;
  partner: number;
  key: string;
  path: string;
  /** The currency debited, and the amount (exact text) as sent. */
  currency: Currency;
  amount: string;
  /** Exchange: the currency credited (the lock is fetched when it runs). */
  currencyTo?: Currency;
  /** Withdrawal: the address (checksummed on ethereum, bech32 on bitcoin); SEPA: the IBAN. */
  destination?: string;
  externalUserId?: string;
  /** A withdrawal that waits for travel-rule data. */
  travelRuleWait?: boolean;
  /** The body, except an exchange's lockId (added once the lock is known). */
  body: JsonBody;
}

export function planOperation(op: number, partner: SimulatedPartner, random: Random): PlannedOperation {
  const kind = random.weighted(KIND_WEIGHTS);
  const key = `chaos-${op}-${kind}-${toHex(random.uint32()).slice(2)}${toHex(random.uint32()).slice(2)}`;
  const base = { op, kind, partner: partner.index, key };
  if (kind === 'exchange') {
    const [from, to] = random.pick(EXCHANGE_PAIRS);
    const [min, max, decimals] = EXCHANGE_AMOUNTS[from]!;
    const amount = amountOf(random, min, max, decimals);
    return {
      ...base,
      path: '/v1/partner/exchange',
      currency: from,
      currencyTo: to,
      amount,
      body: { amount: exactNumber(amount), currencyFrom: from, currencyTo: to },
    };
  }
  if (kind === 'sepa-transfer') {
    const rejected = random.chance(REJECTED_SHARE);
    const amount = amountOf(random, 1, 500, 2);
    const destination = rejected ? REJECTED_IBAN : 'DE89370400440532013000';
    return {
      ...base,
      path: '/v1/partner/sepa-transfer',
      currency: 'eur',
      amount,
      destination,
      body: {
        currency: 'eur',
        amount,
        receiverType: 'NATURAL',
        receiverFirstName: 'Marie',
        receiverLastName: 'Curie',
        destinationIban: destination,
        transferTitle: `Chaos operation ${op}`,
      },
    };
  }
  const currency = random.weighted<WithdrawalCurrency>({ eth: 50, usdc: 25, btc: 25 });
  const travelRuleWait = random.chance(TRAVEL_RULE_SHARE);
  // Below the threshold (EUR 150: eth at 3000, usdc at 0.92, btc at 85000) unless it is to wait; above it otherwise.
  const [below, above] = WITHDRAWAL_AMOUNTS[currency];
  const amount = travelRuleWait ? amountOf(random, ...above) : amountOf(random, ...below);
  const destination =
    currency === 'btc' ? regtestSegwitAddress('bitcoin', randomBytes(random, 20)) : getAddress(toHex(randomBytes(random, 20)));
  const walletType = travelRuleWait ? 'NON_CUSTODIAL' : random.pick(['CUSTODIAL', 'NON_CUSTODIAL', 'OTHER']);
  const externalUserId = kind === 'user-withdrawal' ? random.pick(partner.externalUserIds) : undefined;
  return {
    ...base,
    path: kind === 'user-withdrawal' ? '/v1/crypto-withdrawal' : '/v1/partner/crypto-withdrawal',
    currency,
    amount,
    destination,
    travelRuleWait,
    ...(externalUserId ? { externalUserId } : {}),
    body: {
      currency,
      amount: exactNumber(amount),
      walletAddress: destination,
      name: 'Jan Kowalski',
      walletType,
      receiverType: 'NATURAL',
      ...(externalUserId ? { sourceExternalUserId: externalUserId } : {}),
    },
  };
}

/** [min, max, decimals] below the travel-rule threshold, and above it. */
const WITHDRAWAL_AMOUNTS: Readonly<Record<WithdrawalCurrency, readonly [[number, number, number], [number, number, number]]>> = {
  eth: [
    [0.001, 0.04, 6],
    [0.06, 0.1, 6],
  ],
  usdc: [
    [10, 100, 2],
    [200, 300, 2],
  ],
  btc: [
    [0.0001, 0.0015, 8],
    [0.002, 0.003, 8],
  ],
};

function randomBytes(random: Random, count: number): Uint8Array {
  return Uint8Array.from({ length: count }, () => random.int(0, 255));
}

/** The field of a 2xx answer that names the operation. */
export const ID_FIELD: Readonly<Record<OperationKind, string>> = {
  exchange: 'exchangeId',
  'partner-withdrawal': 'withdrawalId',
  'user-withdrawal': 'withdrawalId',
  'sepa-transfer': 'transferId',
};

export function isWithdrawal(kind: OperationKind): boolean {
  return kind === 'partner-withdrawal' || kind === 'user-withdrawal';
}
