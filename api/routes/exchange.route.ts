import { assertLockIdShape, exchange } from '../../operations/exchange.operation';
import type { ApiDependencies } from '../dependencies';
import { idempotentPost } from '../idempotency/idempotent-post';
import { exchangeBodySchema } from '../schemas/exchange.schema';

/** POST /v1/partner/exchange: 201 once the exchange is final. */
export function exchangeRoute(deps: ApiDependencies) {
  return idempotentPost(deps, {
    schema: exchangeBodySchema,
    invalidKind: 'invalid-request',
    successStatus: 201,
    // Before the key is claimed: a corrected retry with the same key is then not a conflict.
    precheck: (body) => assertLockIdShape(body.lockId),
    // The lock is judged at the moment the request arrived, however long the worker takes to run it.
    perform: (body, { partnerId, resourceId, receivedAt }) =>
      exchange(deps, { ...body, partnerId, exchangeId: resourceId, requestedAt: receivedAt }),
  });
}
