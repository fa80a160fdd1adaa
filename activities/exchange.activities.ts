import { CURRENCY_SCALE } from '../core/currencies';
import type { Currency } from '../core/currencies';
import { DomainError, assertInvariant } from '../core/errors';
import { Decimal, MAX_AMOUNT, roundDown } from '../core/money';
import { tombstoneTransfer } from '../db/ledger/ledger';
import type { TombstoneOutcome } from '../db/ledger/ledger';
import type { PostingInput, TransferInput } from '../db/ledger/ledger';
import { executeExchange, findExchangeTerms } from '../db/queries/exchange.queries';
import type { ExchangeExecution, ExchangeTerms } from '../db/queries/exchange.queries';
import { stopUnknownOperation } from './workflow-binding';
import type { ActivityDependencies } from './dependencies';

export interface ExchangeQuote {
  amountTo: string;
  feeAmount: string;
  /** amountTo + feeAmount: what the exchange desk pays out in currencyTo. */
  grossAmountTo: string;
}

/** DESIGN.md: credited = amount × rates[from] / rates[to] × (1 − fee/100), rounded down; the house keeps the rest of the gross. */
export function quoteExchange(input: {
  amount: string;
  currencyTo: Currency;
  rateFrom: string;
  rateTo: string;
  feePercentage: string;
}): ExchangeQuote {
  const scale = CURRENCY_SCALE[input.currencyTo];
  // Divide once, last: a quotient such as 1/3000 would be cut at the working precision and turn an exact 0.33 into 0.329999….
  const value = new Decimal(input.amount).times(input.rateFrom);
  const gross = roundDown(value.dividedBy(input.rateTo), scale);
  const credited = roundDown(
    value.times(new Decimal(100).minus(input.feePercentage)).dividedBy(new Decimal(input.rateTo).times(100)),
    scale,
  );
  return { amountTo: credited.toFixed(), feeAmount: gross.minus(credited).toFixed(), grossAmountTo: gross.toFixed() };
}

export function createExchangeActivities(deps: ActivityDependencies) {
  return {
    /** After an exchange whose outcome is unknown: a tombstone so a late attempt can never commit, or says it committed first. */
    async abandonExchange(exchangeId: string): Promise<TombstoneOutcome> {
      return deps.orm.em.fork().transactional((em) => tombstoneTransfer(em, exchangeId, 'EXCHANGE'));
    },

    /**
     * Consumes the lock and moves both currencies in one statement (execute_exchange decides everything); re-running finds the
     * exchange. The quote, computed here from the lock as read, is used only while the lock still has those rates and fee.
     */
    async executeExchange(exchangeId: string): Promise<{ exchangeId: string }> {
      const terms = await findExchangeTerms(deps.pool, exchangeId);
      const now = deps.clock.now();
      const order = terms && orderOf(exchangeId, terms);
      const executed = await executeExchange(deps.pool, {
        exchangeId,
        lock: terms?.lock,
        quote: order && terms.lock && quoted(order, terms.lock, now),
        now,
      });
      if (executed.outcome === 'UNKNOWN') return stopUnknownOperation(deps, exchangeId, executed.reason);
      return { exchangeId };
    },
  };
}

/** An accepted exchange, as the quote reads it. */
interface ExchangeOrder {
  exchangeId: string;
  partnerId: string;
  lockId: string;
  currencyFrom: Currency;
  currencyTo: Currency;
  amount: string;
}

function orderOf(exchangeId: string, terms: ExchangeTerms): ExchangeOrder {
  const { request } = terms;
  return {
    exchangeId,
    partnerId: terms.partnerId,
    lockId: request.lock_id,
    currencyFrom: request.currency_from as Currency,
    currencyTo: request.currency_to as Currency,
    amount: request.amount_from,
  };
}

/** The transfer and the row at the lock's rates, or why the amount cannot be exchanged at them. */
function quoted(input: ExchangeOrder, lock: NonNullable<ExchangeTerms['lock']>, now: Date): ExchangeExecution['quote'] {
  let quote: ExchangeQuote;
  try {
    quote = quoteFor(input, lock);
  } catch (error) {
    if (error instanceof DomainError) return { problem: error.detail ?? error.message };
    throw error;
  }
  return {
    transfer: exchangeTransfer(input, quote),
    exchange: {
      id: input.exchangeId,
      partner_id: input.partnerId,
      lock_id: input.lockId,
      currency_from: input.currencyFrom,
      currency_to: input.currencyTo,
      amount_from: input.amount,
      amount_to: quote.amountTo,
      fee_amount: quote.feeAmount,
      status: 'SUCCESSFUL',
      created_at: now.toISOString(),
    },
  };
}

/** The exchange's quote at the lock's rates; refused when it credits nothing or more than a balance may hold. */
function quoteFor(input: ExchangeOrder, lock: NonNullable<ExchangeTerms['lock']>): ExchangeQuote {
  const rateFrom = lock.rates[input.currencyFrom];
  const rateTo = lock.rates[input.currencyTo];
  assertInvariant(rateFrom && rateTo, `lock ${input.lockId} has rates for ${input.currencyFrom} and ${input.currencyTo}`);
  const quote = quoteExchange({ amount: input.amount, currencyTo: input.currencyTo, rateFrom, rateTo, feePercentage: lock.feePercentage });
  if (!new Decimal(quote.amountTo).isPositive() || new Decimal(quote.amountTo).isZero()) {
    throw new DomainError('invalid-request', `amount is too small: it buys no ${input.currencyTo} after rounding`);
  }
  // The API bounds the debited amount, but a rate ratio can still credit more than a balance holds; the gross is never less.
  if (new Decimal(quote.grossAmountTo).gt(MAX_AMOUNT)) {
    throw new DomainError('invalid-request', `amount is too large: it would credit more than ${MAX_AMOUNT.toFixed()} ${input.currencyTo}`);
  }
  return quote;
}

/** The exchange's transfer at its quote, posted at once. */
function exchangeTransfer(input: ExchangeOrder, quote: ExchangeQuote): TransferInput {
  // Accounts named by partner and system code: the ledger resolves them in its one statement.
  const postings: PostingInput[] = [
    { partnerId: input.partnerId, currency: input.currencyFrom, amount: new Decimal(input.amount).negated().toFixed() },
    { systemAccount: 'EXCHANGE_DESK', currency: input.currencyFrom, amount: input.amount },
    { systemAccount: 'EXCHANGE_DESK', currency: input.currencyTo, amount: new Decimal(quote.grossAmountTo).negated().toFixed() },
    { partnerId: input.partnerId, currency: input.currencyTo, amount: quote.amountTo },
  ];
  if (!new Decimal(quote.feeAmount).isZero()) {
    postings.push({ systemAccount: 'FEE_INCOME', currency: input.currencyTo, amount: quote.feeAmount });
  }
  return { transferId: input.exchangeId, kind: 'EXCHANGE', postings };
}
