import type { Middleware } from 'koa';
import { HttpError } from '../http/http-error';
import type { ApiState } from '../state';

/**
 * A `read` key may only call routes that change nothing: a leaked one moves no money and creates nothing (403 P440
 * before any validation, and before the rate limit, so it spends none of the partner's quota either).
 */
export function keyScopeMiddleware(changesState: boolean): Middleware<ApiState> {
  if (!changesState) return (_ctx, next) => next();
  return async (ctx, next) => {
    const { scope } = ctx.state.apiKey;
    if (scope !== 'payments') {
      throw new HttpError(
        'key-not-permitted',
        `this API key has the ${scope} scope, which only reads; ${ctx.method} ${ctx.path} changes something and needs a key with the payments scope`,
      );
    }
    await next();
  };
}
