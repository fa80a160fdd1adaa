import { randomUUID } from 'node:crypto';
import type { Middleware } from 'koa';
import { withLogContext } from '../../core/logger';

/** What we accept from a caller: short, and safe to echo in a header and a log line. */
const WELL_FORMED = /^[A-Za-z0-9._:-]{1,128}$/;

/** `X-Request-Id` on every response (the caller's if well-formed, else a UUID), on the request's log lines and its workflow's memo. */
export function requestIdMiddleware(): Middleware {
  return async (ctx, next) => {
    const offered = ctx.get('x-request-id');
    const requestId = WELL_FORMED.test(offered) ? offered : randomUUID();
    ctx.set('X-Request-Id', requestId);
    await withLogContext({ requestId }, next);
  };
}
