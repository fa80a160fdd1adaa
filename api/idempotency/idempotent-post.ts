import type { z } from 'zod';
import type { DomainErrorKind } from '../../core/errors';
import type { ApiDependencies } from '../dependencies';
import { respond } from '../http/respond';
import { requestOutcome } from '../metrics/request-outcome';
import { parseOrThrow } from '../schemas/validation';
import type { ApiContext } from '../state';
import { performIdempotently } from './idempotency';

/** What a POST answers with: a JSON object (ids, so far), stored as it is for replays. */
type ResponseBody = z.ZodType<Record<string, unknown>>;

export interface IdempotentPost<Schema extends z.ZodType, Response extends ResponseBody> {
  schema: Schema;
  /** The error kind of a body the schema refuses (the withdrawal routes answer P410, others P400). */
  invalidKind: DomainErrorKind;
  /** The route's success answer: its status (200 or 201, as the spec gives it) and body schema. */
  response: { status: number; body: Response };
  /** Refusals that need no current data, checked before the key is claimed (a retry may fix them). */
  precheck?(body: z.output<Schema>): void;
  /** Runs the operation for a resource id that is the same on every replay of the key; returns the body to answer. */
  perform(body: z.output<Schema>, context: { partnerId: string; resourceId: string; receivedAt: Date }): Promise<z.output<Response>>;
}

/** Every money-moving POST: parse the body strictly, then run the operation at most once per Idempotency-Key (bound to the route). */
export function idempotentPost<Schema extends z.ZodType, Response extends ResponseBody>(
  deps: ApiDependencies,
  post: IdempotentPost<Schema, Response>,
) {
  return async (ctx: ApiContext): Promise<void> => {
    const receivedAt = deps.clock.now();
    const route = ctx._matchedRoute ?? ctx.path;
    const outcome = requestOutcome(ctx);
    // For metrics, its last path segment: exchange, crypto-withdrawal, sepa-transfer.
    outcome.operation = String(route).split('/').filter(Boolean).at(-1) ?? String(route);
    const body = parseOrThrow(post.schema, ctx.state.body, post.invalidKind);
    post.precheck?.(body);
    const { partnerId } = ctx.state;
    const response = await performIdempotently(deps.pool, {
      partnerId,
      operation: `${ctx.method} ${String(route)}`,
      key: ctx.get('idempotency-key') || undefined,
      body: ctx.state.body,
      perform: async (resourceId) => {
        outcome.performed = true;
        return { status: post.response.status, body: await post.perform(body, { partnerId, resourceId, receivedAt }) };
      },
    });
    if (response.replayed) {
      outcome.replayed = true;
      ctx.set('Idempotent-Replayed', 'true');
    }
    respond(ctx, response.status, response.body);
  };
}
