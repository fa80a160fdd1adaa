import { LockMode } from '@mikro-orm/core';
import type { EntityManager } from '@mikro-orm/postgresql';
import { CURRENCY_SCALE } from '../core/currencies';
import type { Currency } from '../core/currencies';
import { DomainError, assertInvariant } from '../core/errors';
import { Decimal, MAX_AMOUNT, roundDown } from '../core/money';
import { Exchange } from '../db/entities/exchange.entity';
import { RateLock } from '../db/entities/rate-lock.entity';
import { assertNotAbandoned, postTransferDirectly, tombstoneTransfer } from '../db/ledger/ledger';
import type { TombstoneOutcome } from '../db/ledger/ledger';
import type { PostingInput, TransferInput } from '../db/ledger/ledger';
import { exchangeContract } from '../contracts';
import type { ExchangeInput } from '../contracts';
import { executeExchangeInOneStatement } from '../db/queries/exchange.queries';
import { findRateLockTerms, useValidRateLock } from '../db/queries/rate-lock.queries';
import { UUID, acceptedRequest, workflowMismatch } from './accepted-operation.guard';
import type { ActivityDependencies } from './dependencies';

export interface ExchangeQuote {
  amountTo: string;
  feeAmount: string;
  /** amountTo + feeAmount: what the exchange desk pays out in currencyTo. */
  grossAmountTo: string;
}

/**
 * DESIGN.md: credited = amount × rates[from] / rates[to] × (1 − fee/100), rounded down to the
 * scale of currencyTo; the house keeps the difference to the gross amount, also rounded down.
 */
export function quoteExchange(input: {
  amount: string;
  currencyTo: Currency;
  rateFrom: string;
  rateTo: string;
  feePercentage: string;
}): ExchangeQuote {
  const scale = CURRENCY_SCALE[input.currencyTo];
  // Multiply first and divide once, last: an intermediate quotient such as 1/3000 would be cut
  // at the working precision and turn an exact 0.33 into 0.329999….
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
    /**
     * After an exchange whose outcome is unknown (retries ran out, or cancelled): leaves a
     * tombstone so a late attempt can never commit, or reports that it committed first.
     */
    async abandonExchange(exchangeId: string): Promise<TombstoneOutcome> {
      return deps.orm.em.fork().transactional((em) => tombstoneTransfer(em, exchangeId, 'EXCHANGE'));
    },

    /**
     * Consumes the lock and moves both currencies in one transaction; re-running finds the
     * exchange. The usual path is one statement after the lock's read (exchangeInOneStatement);
     * step by step otherwise: the lock consumed by a conditional update, the transfer posted, the
     * exchange stored (an exchange given up on is refused by the ledger, and everything rolls back).
     * When the lock cannot be used, the reasons are read in their order: the exchange stored by an
     * earlier run, the tombstone, then what is wrong with the lock.
     */
    async executeExchange(requested: ExchangeInput): Promise<{ exchangeId: string }> {
      if (await exchangeInOneStatement(deps, requested)) return { exchangeId: requested.exchangeId };
      return deps.orm.em.fork().transactional(async (em) => {
        // Takes the operation's lock too: an earlier attempt has committed or rolled back.
        const input = await acceptedRequest(em, deps, {
          kind: 'EXCHANGE',
          contract: exchangeContract,
          operationId: requested.exchangeId,
          input: requested,
        });
        const now = deps.clock.now();
        const lock = await useValidRateLock(em, { id: input.lockId, partnerId: input.partnerId, requestedAt: input.requestedAt, now });
        if (lock) {
          const quote = await quoteOrAbandoned(em, input, { ...lock, lockId: input.lockId });
          await moveExchange(em, input, { lockId: input.lockId, quote }, now);
          return { exchangeId: input.exchangeId };
        }
        const existing = await em.findOne(Exchange, { id: input.exchangeId });
        if (existing) return { exchangeId: existing.id };
        await assertNotAbandoned(em, input.exchangeId);
        await performExchange(em, input, now);
        return { exchangeId: input.exchangeId };
      });
    },
  };
}

/**
 * The usual path in two round trips: the partner's lock read, the quote computed from it, then
 * execute_exchange (db/queries/exchange.queries.ts), which uses the lock only at those rates and
 * posts and stores only for the operation the API accepted with exactly this input. False when the
 * activity must exchange step by step, as it always did: the workflow is not the operation's own,
 * the lock is not the partner's or gives no quote (refused there, with the reason, in their order),
 * or the database found something to decide (another input than the accepted one, a lock used or
 * expired). The input is trusted for nothing: the database writes only once it has found it equal
 * to the accepted request.
 */
async function exchangeInOneStatement(deps: Pick<ActivityDependencies, 'pool' | 'clock'>, input: ExchangeInput): Promise<boolean> {
  if (workflowMismatch({ contract: exchangeContract, operationId: input.exchangeId }) !== undefined) return false;
  // Lower case, as Postgres prints a uuid: execute_exchange compares the request's lockId as text.
  if (!UUID.test(String(input.lockId)) || !UUID.test(String(input.partnerId))) return false;
  const terms = await findRateLockTerms(deps.pool, { id: input.lockId, partnerId: input.partnerId });
  if (!terms) return false;
  let quote: ExchangeQuote;
  try {
    quote = quoteFor(input, { ...terms, lockId: input.lockId });
  } catch {
    return false;
  }
  const now = deps.clock.now();
  const outcome = await executeExchangeInOneStatement(deps.pool, {
    exchangeId: input.exchangeId,
    workflowId: exchangeContract.workflowId(input.exchangeId),
    request: input,
    lock: { id: input.lockId, ...terms },
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
    now,
  });
  return outcome !== 'DECIDE';
}

/** With the lock read and checked under FOR UPDATE: its precise refusal, or (a lock that became usable) the exchange. */
async function performExchange(em: EntityManager, input: ExchangeInput, now: Date): Promise<void> {
  const lock = await em.findOne(RateLock, { id: input.lockId }, { lockMode: LockMode.PESSIMISTIC_WRITE });
  // Unknown, foreign, used and expired locks all look the same to the partner (DESIGN.md).
  if (!lock || lock.partnerId !== input.partnerId) throw new DomainError('invalid-exchange-lock', 'the lock does not exist');
  if (lock.usedAt) throw new DomainError('invalid-exchange-lock', 'the lock has already been used');
  if (lock.validUntil.getTime() <= new Date(input.requestedAt).getTime()) {
    throw new DomainError('invalid-exchange-lock', 'the lock has expired');
  }
  const quote = quoteFor(input, { rates: lock.rates, feePercentage: lock.feePercentage, lockId: lock.id });
  lock.usedAt = now;
  await moveExchange(em, input, { lockId: lock.id, quote }, now);
}

/**
 * The usual path's quote: an amount the lock's rates cannot exchange is refused as such, unless
 * the exchange was given up on, which is refused first, as the locked path does (nothing has
 * failed in the transaction yet, so the tombstone can still be read).
 */
async function quoteOrAbandoned(em: EntityManager, input: ExchangeInput, lock: LockTerms): Promise<ExchangeQuote> {
  try {
    return quoteFor(input, lock);
  } catch (error) {
    if (error instanceof DomainError) await assertNotAbandoned(em, input.exchangeId);
    throw error;
  }
}

interface LockTerms {
  lockId: string;
  rates: Record<string, string>;
  feePercentage: string;
}

/** The exchange's quote at the lock's rates; refused when it credits nothing or more than a balance may hold. */
function quoteFor(input: ExchangeInput, lock: LockTerms): ExchangeQuote {
  const rateFrom = lock.rates[input.currencyFrom];
  const rateTo = lock.rates[input.currencyTo];
  assertInvariant(rateFrom && rateTo, `lock ${lock.lockId} has rates for ${input.currencyFrom} and ${input.currencyTo}`);
  const quote = quoteExchange({ amount: input.amount, currencyTo: input.currencyTo, rateFrom, rateTo, feePercentage: lock.feePercentage });
  if (!new Decimal(quote.amountTo).isPositive() || new Decimal(quote.amountTo).isZero()) {
    throw new DomainError('invalid-request', `amount is too small: it buys no ${input.currencyTo} after rounding`);
  }
  // The API bounds the debited amount; a rate ratio can still make the credited one larger than
  // any balance may hold (numeric(38,18)). The gross amount is checked: it is never less.
  if (new Decimal(quote.grossAmountTo).gt(MAX_AMOUNT)) {
    throw new DomainError('invalid-request', `amount is too large: it would credit more than ${MAX_AMOUNT.toFixed()} ${input.currencyTo}`);
  }
  return quote;
}

/** Posts the exchange's transfer at its quote and stores the exchange; the lock is already marked used. */
async function moveExchange(
  em: EntityManager,
  input: ExchangeInput,
  { lockId, quote }: { lockId: string; quote: ExchangeQuote },
  now: Date,
): Promise<void> {
  await postTransferDirectly(em, exchangeTransfer(input, quote), now);

  em.create(Exchange, {
    id: input.exchangeId,
    partnerId: input.partnerId,
    lockId,
    currencyFrom: input.currencyFrom,
    currencyTo: input.currencyTo,
    amountFrom: input.amount,
    amountTo: quote.amountTo,
    feeAmount: quote.feeAmount,
    status: 'SUCCESSFUL',
    createdAt: now,
  });
  await em.flush();
}

/** The exchange's transfer at its quote, posted at once on either path. */
function exchangeTransfer(input: ExchangeInput, quote: ExchangeQuote): TransferInput {
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
