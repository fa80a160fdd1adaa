import type { Middleware } from 'koa';
import type { ApiKeyScope } from '../../core/api-keys';
import { HttpError } from '../http/http-error';
import type { ApiState } from '../state';

/** The methods each scope may use; null: every method. OPTIONS is not served, but it would only describe. */
const METHODS_OF_SCOPE: Readonly<Record<ApiKeyScope, ReadonlySet<string> | null>> = {
  read: new Set(['GET', 'HEAD', 'OPTIONS']),
  payments: null,
};

/** A key may use only its scope's methods: a leaked `read` key changes nothing (403 P440 before any validation). */
export function keyScopeMiddleware(): Middleware<ApiState> {
  return async (ctx, next) => {
    const { scope } = ctx.state.apiKey;
    const methods = METHODS_OF_SCOPE[scope];
    if (methods !== null && !methods.has(ctx.method)) {
      throw new HttpError(
        'key-not-permitted',
        `this API key has the ${scope} scope, which only reads (GET); ${ctx.method} ${ctx.path} needs a key with the payments scope`,
      );
    }
    await next();
  };
}
