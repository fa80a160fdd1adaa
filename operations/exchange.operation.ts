import { z } from 'zod';
import { exchangeContract } from '../contracts';
import type { Currency } from '../core/currencies';
import { DomainError } from '../core/errors';
import { operationSearchAttributes } from '../core/search-attributes';
import type { AcceptedExchange } from '../db/queries/accepted-operation.queries';
import type { OperationDependencies } from './dependencies';
import { refuseUnusableLock } from './early-refusal';
import { executeWorkflow } from './temporal/workflow-runner';
import { exchangeMetadata, partnerLabelOf } from './temporal/workflow-summary';

export interface ExchangeRequest {
  partnerId: string;
  /** The same on every replay of an Idempotency-Key. */
  exchangeId: string;
  amount: string;
  currencyFrom: Currency;
  currencyTo: Currency;
  lockId: string;
  /** When the request arrived: the lock must be valid then, however long the worker takes. */
  requestedAt: Date;
}

const lockIdSchema = z.uuid();

/** Any text names no lock: P432 (spec), not a malformed body. Needs no data, so callers may check first. */
export function assertLockIdShape(lockId: string): void {
  if (!lockIdSchema.safeParse(lockId).success) throw new DomainError('invalid-exchange-lock', 'the lock does not exist');
}

/** Exchanges with a rate lock; final when this returns (the workflow has completed). */
export async function exchange(deps: OperationDependencies, request: ExchangeRequest): Promise<{ exchangeId: string }> {
  assertLockIdShape(request.lockId);
  const { partnerId, exchangeId } = request;
  const accepted: AcceptedExchange = {
    lock_id: request.lockId,
    currency_from: request.currencyFrom,
    currency_to: request.currencyTo,
    amount_from: request.amount,
    requested_at: request.requestedAt.toISOString(),
  };
  const metadata = exchangeMetadata(exchangeId, accepted, await partnerLabelOf(deps.pool, partnerId));
  await executeWorkflow(deps.temporal, {
    contract: exchangeContract,
    args: [{ exchangeId, currencyFrom: request.currencyFrom, currencyTo: request.currencyTo }],
    searchAttributes: operationSearchAttributes(partnerId, 'exchange', request.currencyFrom, metadata.plainSummary),
    metadata,
    operation: { type: 'exchange', id: exchangeId, partnerId },
    request: accepted,
    // The lock is what execute_exchange checks first; funds come after the quote, which needs the lock's rates.
    refuseEarly: () => refuseUnusableLock(deps.pool, partnerId, request.lockId, request.requestedAt),
  });
  return { exchangeId };
}
