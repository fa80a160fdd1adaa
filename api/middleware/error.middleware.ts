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

/**
 * Postgres unavailable or too slow (a dropped connection, our statement or lock timeout, a
 * server restarting) or Temporal unreachable: the request may be retried later (503).
 */
function isUnavailable(error: unknown): boolean {
  if (isDatabaseUnavailable(error)) return true;
  if (typeof error !== 'object' || error === null) return false;
  const { name } = error as { name?: unknown };
  return name === 'ServiceError' || name === 'ConnectionError';
}

/**
 * Maps every error to the one body shape; anything unexpected is answered as P500 without its
 * details. The error code (and a 5xx's cause) is noted for the access log, which reports each
 * request once, and for the metrics.
 */
export function errorMiddleware(): Middleware {
  return async (ctx, next) => {
    try {
      await next();
      if (ctx.status === 404 && ctx.body === undefined) {
        throw new DomainError('not-found', `no route ${ctx.method} ${ctx.path}`);
      }
    } catch (error) {
      let kind: ApiErrorKind;
      let message: string | undefined;
      if (error instanceof DomainError || error instanceof HttpError) {
        kind = error.kind;
        message = error.detail;
      } else if (isUnavailable(error)) {
        kind = 'service-unavailable';
        message = 'a backing service is unavailable; retry later';
      } else {
        kind = 'internal-error';
        message = undefined;
      }
      const shape = HTTP_ERRORS[kind];
      const outcome = requestOutcome(ctx);
      outcome.errorCode = shape.errorCode;
      if (shape.status >= 500) outcome.error = error;
      // A client retrying at once would only add load to what is unavailable: a second, like a 429's wait.
      if (shape.status === 503) ctx.set('Retry-After', String(UNAVAILABLE_RETRY_AFTER_SECONDS));
      respond(ctx, shape.status, errorBody(kind, message));
    }
  };
}
