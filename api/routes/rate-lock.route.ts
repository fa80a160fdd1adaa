import { randomUUID } from 'node:crypto';
import { assertInvariant } from '../../core/errors';
import { Decimal } from '../../core/money';
import { insertRateLock } from '../../db/queries/rate-lock.queries';
import type { ApiDependencies } from '../dependencies';
import { jsonNumber } from '../http/exact-json';
import { respond } from '../http/respond';
import type { ApiContext } from '../state';

/** Spec: a lock is valid for exactly 40 seconds. */
export const RATE_LOCK_VALIDITY_MS = 40_000;

/** GET /v1/partner/get-lock: stores a single-use lock on the current rates and the partner's fee. */
export function rateLockRoute(deps: ApiDependencies) {
  return async (ctx: ApiContext): Promise<void> => {
    const createdAt = deps.clock.now();
    const rates = await deps.rateSource.currentEurRates();
    const lock = await insertRateLock(deps.pool, {
      id: randomUUID(),
      partnerId: ctx.state.partnerId,
      rates,
      createdAt,
      validUntil: new Date(createdAt.getTime() + RATE_LOCK_VALIDITY_MS),
    });
    assertInvariant(lock, 'the authenticated partner exists');
    respond(ctx, 200, {
      id: lock.id,
      rates: Object.fromEntries(Object.entries(lock.rates).map(([currency, rate]) => [currency, jsonNumber(rate)])),
      feePercentage: jsonNumber(new Decimal(lock.fee_percentage)),
      createdAt: lock.created_at.toISOString(),
      validUntil: lock.valid_until.toISOString(),
    });
  };
}
