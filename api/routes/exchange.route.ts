import { z } from 'zod';
import { assertLockIdShape, exchange } from '../../operations/exchange.operation';
import { jsonNumber } from '../http/exact-json';
import { idempotentPost } from '../idempotency/idempotent-post';
import { exchangeBodySchema } from '../schemas/exchange.schema';
import { idField } from '../schemas/response-fields.schema';
import type { Route, RouteResponse } from './route';

const LOCK_ID = '5b0e1c9e-8d55-4a8f-9a51-1f3c2f0f4b7e';

/** What the route answers: a field added here is one the handler below must write (it does not compile until then). */
const exchangeCreated = {
  status: 201,
  description: 'The exchange is done.',
  body: z.strictObject({ exchangeId: idField('The exchange id.', '2b1a6c5e-3f0e-4c52-8f7d-0c8c2a9f4e11') }).meta({ id: 'ExchangeCreated' }),
  examples: { created: { summary: 'Done', value: { exchangeId: '2b1a6c5e-3f0e-4c52-8f7d-0c8c2a9f4e11' } } },
} satisfies RouteResponse;

/** POST /v1/partner/exchange: 201 once the exchange is final. */
export const exchangeRoute: Route = {
  method: 'post',
  path: '/v1/partner/exchange',
  authenticated: true,
  docs: {
    operationId: 'createExchange',
    tag: 'Partner',
    summary: 'Exchange between two currencies at a locked rate',
    description:
      'Debits `amount` of currencyFrom and credits `amount × rates[from] / rates[to] × (1 − feePercentage/100)` of currencyTo, ' +
      'rounded down to its decimals. Answers once the exchange is final.',
    errors: ['invalid-exchange-lock', 'insufficient-funds', 'operation-abandoned', 'too-many-operations'],
  },
  request: {
    body: {
      schema: exchangeBodySchema,
      examples: {
        eurToBtc: {
          summary: 'EUR to BTC',
          value: { amount: jsonNumber('100.50'), currencyFrom: 'eur', currencyTo: 'btc', lockId: LOCK_ID },
        },
        smallest: {
          summary: 'The smallest ETH amount',
          value: { amount: jsonNumber('0.000000000000000001'), currencyFrom: 'eth', currencyTo: 'pol', lockId: LOCK_ID },
        },
      },
    },
  },
  response: exchangeCreated,
  handler: (deps) =>
    idempotentPost(deps, {
      schema: exchangeBodySchema,
      invalidKind: 'invalid-request',
      response: exchangeCreated,
      // Before the key is claimed: a corrected retry with the same key is then not a conflict.
      precheck: (body) => assertLockIdShape(body.lockId),
      // The lock is judged at the moment the request arrived, however long the worker takes to run it.
      perform: async (body, { partnerId, resourceId, receivedAt }) => {
        const { exchangeId } = await exchange(deps, { ...body, partnerId, exchangeId: resourceId, requestedAt: receivedAt });
        return { exchangeId };
      },
    }),
};
