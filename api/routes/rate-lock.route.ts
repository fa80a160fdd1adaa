import { randomUUID } from 'node:crypto';
import { z } from 'zod';
import { CURRENCIES } from '../../core/currencies';
import { assertInvariant } from '../../core/errors';
import { Decimal } from '../../core/money';
import { insertRateLock } from '../../db/queries/rate-lock.queries';
import type { ApiDependencies } from '../dependencies';
import { jsonNumber } from '../http/exact-json';
import { respond } from '../http/respond';
import { exactNumber } from '../openapi/exact-number';
import { idField, timestampField } from '../schemas/response-fields.schema';
import type { ApiContext } from '../state';
import type { Route } from './route';

/** Spec: a lock is valid for exactly 40 seconds. */
const RATE_LOCK_VALIDITY_MS = 40_000;

/** GET /v1/partner/get-lock: stores a single-use lock on the current rates and the partner's fee. */
export const rateLockRoute: Route = {
  method: 'get',
  path: '/v1/partner/get-lock',
  authenticated: true,
  changesState: true,
  docs: {
    operationId: 'getRateLock',
    tag: 'Partner',
    summary: 'Lock the current exchange rates for 40 seconds',
    description:
      "Makes a single-use lock on the current EUR rates and the partner's fee, valid for exactly 40 seconds; use its id as the lockId of one exchange.",
    errors: [],
  },
  request: {},
  response: {
    status: 200,
    description: 'The lock.',
    body: z
      .strictObject({
        id: idField('The lock id: the lockId of one exchange.', '5b0e1c9e-8d55-4a8f-9a51-1f3c2f0f4b7e'),
        rates: z
          .strictObject(
            Object.fromEntries(
              CURRENCIES.map((slug) => [slug, exactNumber(`The EUR price of one ${slug}.`, [slug === 'eur' ? '1' : '0.5'])]),
            ),
          )
          .meta({ description: 'The EUR price of one unit of each currency (eur is 1).' }),
        feePercentage: exactNumber("The partner's exchange fee in percent, kept from the credited amount.", ['1.5']),
        createdAt: timestampField('When the lock was made.', '2026-11-21T16:12:27.786Z'),
        validUntil: timestampField('40 seconds after createdAt: an exchange must arrive before then.', '2026-11-21T16:13:07.786Z'),
      })
      .meta({ id: 'RateLock' }),
    examples: {
      lock: {
        summary: 'A lock',
        value: {
          id: '5b0e1c9e-8d55-4a8f-9a51-1f3c2f0f4b7e',
          rates: {
            eur: jsonNumber('1'),
            btc: jsonNumber('61854.2'),
            doge: jsonNumber('0.1523'),
            eth: jsonNumber('2834.12'),
            ltc: jsonNumber('71.9'),
            pol: jsonNumber('0.4371'),
            usdc: jsonNumber('0.9213'),
          },
          feePercentage: jsonNumber('1'),
          createdAt: '2026-11-21T16:12:27.786Z',
          validUntil: '2026-11-21T16:13:07.786Z',
        },
      },
    },
  },
  handler: rateLockHandler,
};

function rateLockHandler(deps: ApiDependencies) {
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
    respond(ctx, rateLockRoute.response.status, {
      id: lock.id,
      rates: Object.fromEntries(Object.entries(lock.rates).map(([currency, rate]) => [currency, jsonNumber(rate)])),
      feePercentage: jsonNumber(new Decimal(lock.fee_percentage)),
      createdAt: lock.created_at.toISOString(),
      validUntil: lock.valid_until.toISOString(),
    });
  };
}
