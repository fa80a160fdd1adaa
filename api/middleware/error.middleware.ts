import type { Middleware } from 'koa';
import { DomainError } from '../../core/errors';
import { isDatabaseUnavailable } from '../../db/connection-settings';
import { HTTP_ERRORS, errorBody } from '../http/error-mapping';
import type { ApiErrorKind } from '../http/error-mapping';
import { HttpError } from '../http/http-error';
import { respond } from '../http/respond';
import { requestOutcome } from '../metrics/request-outcome';

/** What a 503 asks a client to wait before retrying (the same Idempotency-Key for a POST). */
export const UNAVAILABLE_RETRY_AFTER_SECONDS = 1;

/** Postgres unavailable or too slow (dropped, timed out, restarting) or Temporal unreachable: retry later (503). */
function isUnavailable(error: unknown): boolean {
  if (isDatabaseUnavailable(error)) return true;
  if (typeof error !== 'object' || error === null) return false;
  const { name } = error as { name?: unknown };
  return name === 'ServiceError' || name === 'ConnectionError';
}

/** Every error in the one body shape, anything unexpected as P500 without details; the code is noted for log and metrics. */
export function errorMiddleware(): Middleware {
  return async (ctx, next) => {
    try {
      await next();
      if (ctx.status === 404 && ctx.body === undefined) throw new DomainError('not-found', `no route ${ctx.method} ${ctx.path}`);
    } catch (error) {
      const [kind, message]: [ApiErrorKind, string | undefined] =
        error instanceof DomainError || error instanceof HttpError
          ? [error.kind, error.detail]
          : isUnavailable(error)
            ? ['service-unavailable', 'a backing service is unavailable; retry later']
            : ['internal-error', undefined];
      const shape = HTTP_ERRORS[kind];
      const outcome = requestOutcome(ctx);
      outcome.errorCode = shape.errorCode;
      if (shape.status >= 500) outcome.error = error;
      // A client retrying at once would only add load: a second, unless the rate limit said how long.
      if ((shape.status === 503 || shape.status === 429) && !ctx.response.get('Retry-After'))
        ctx.set('Retry-After', String(UNAVAILABLE_RETRY_AFTER_SECONDS));
      respond(ctx, shape.status, errorBody(kind, message));
    }
  };
}
