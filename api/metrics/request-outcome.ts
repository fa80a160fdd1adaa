import { Readable } from 'node:stream';
import type { Context } from 'koa';

/** What happened to a request, for the access log and the metrics; kept beside the context, not in ctx.state (which routes read). */
export interface RequestOutcome {
  /** The spec's P-code of an error answer (P404, P433, …). */
  errorCode?: string;
  /** A 5xx's cause, for the one log line that reports it. */
  error?: unknown;
  /** The operation a money-moving POST runs (exchange, crypto-withdrawal, sepa-transfer). */
  operation?: string;
  /** The operation was started (or joined) by this request, not answered from the idempotency store. */
  performed?: boolean;
  replayed?: boolean;
}

/** Keyed by the request's context object (Koa hands every middleware and route the same one). */
const outcomes = new WeakMap<object, RequestOutcome>();

export function requestOutcome(ctx: object): RequestOutcome {
  let outcome = outcomes.get(ctx);
  if (!outcome) outcomes.set(ctx, (outcome = {}));
  return outcome;
}

/** The route's path template (`/v1/crypto-withdrawal/details/:withdrawalId`), never the raw URL; `unmatched` for a 404. */
export function routeOf(ctx: object): string {
  const matched = (ctx as { _matchedRoute?: string | RegExp })._matchedRoute;
  return typeof matched === 'string' ? matched : 'unmatched';
}

/**
 * Runs `done` once the response is complete: at once for a body in memory, when a streamed one ends (so its duration
 * and a failure half-way count). Waiting for the socket every time would let a client's next request overtake it.
 */
export function whenResponded(ctx: Context, done: () => void): void {
  if (!(ctx.body instanceof Readable) || ctx.res.writableFinished) done();
  else ctx.res.once('close', done);
}
