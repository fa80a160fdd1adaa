import type { Context } from 'koa';
import { z } from 'zod';
import { DomainError } from '../../core/errors';
import type { ExchangeInput } from '../../activities/exchange.activities';
import { operationSearchAttributes } from '../../core/search-attributes';
import { workflowIds } from '../../workflows/definitions';
import type { ApiDependencies } from '../dependencies';
import { performIdempotently } from '../idempotency/idempotency';
import { respondJson } from '../http/respond';
import { exchangeBodySchema } from '../schemas/exchange.schema';
import { parseOrThrow } from '../schemas/validation';
import { executeWorkflow } from '../temporal/workflow-runner';

/** POST /v1/partner/exchange: 201 once the exchange is final (the workflow has completed). */
export function exchangeRoute(deps: ApiDependencies) {
  return async (ctx: Context): Promise<void> => {
    const partnerId = ctx.state.partnerId as string;
    const body = parseOrThrow(exchangeBodySchema, ctx.state.body, 'invalid-request');
    if (!z.uuid().safeParse(body.lockId).success) throw new DomainError('invalid-exchange-lock', 'the lock does not exist');
    // The lock must be valid when the request arrives, however long the worker takes to run it.
    const requestedAt = deps.clock.now().toISOString();
    const response = await performIdempotently(deps.pool, {
      partnerId,
      operation: 'POST /v1/partner/exchange',
      key: ctx.get('idempotency-key') || undefined,
      body: ctx.state.body,
      async perform(exchangeId) {
        const input: ExchangeInput = { exchangeId, partnerId, requestedAt, ...body };
        await executeWorkflow(deps.temporal, {
          workflowType: 'exchangeWorkflow',
          workflowId: workflowIds.exchange(exchangeId),
          args: [input],
          searchAttributes: operationSearchAttributes(partnerId, 'exchange', body.currencyFrom),
          operation: { id: exchangeId, ledgerKind: 'EXCHANGE' },
        });
        return { status: 201, body: { exchangeId } };
      },
    });
    respondJson(ctx, response.status, response.body);
  };
}
