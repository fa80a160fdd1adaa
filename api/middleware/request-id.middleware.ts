import { randomUUID } from 'node:crypto';
import type { Middleware } from 'koa';
import { withLogContext } from '../../core/logger';

/** What we accept from a caller: short, and safe to echo in a header and a log line. */
const WELL_FORMED = /^[A-Za-z0-9._:-]{1,128}$/;

/**
 * The first middleware: every response carries `X-Request-Id` (errors, 404 and health included),
 * the caller's own if well-formed, else a fresh UUID; everything logged while the request runs
 * carries it as `requestId` (the log context), and so does the workflow it starts (its memo).
 */
export function requestIdMiddleware(): Middleware {
  return async (ctx, next) => {
    const offered = ctx.get('x-request-id');
    const requestId = WELL_FORMED.test(offered) ? offered : randomUUID();
    ctx.set('X-Request-Id', requestId);
    await withLogContext({ requestId }, next);
  };
}
