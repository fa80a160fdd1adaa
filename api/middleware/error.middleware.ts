import type { Middleware } from 'koa';
import { DomainError } from '../../core/errors';
import type { Logger } from '../../core/logger';
import { HTTP_ERRORS, errorBody } from '../http/error-mapping';
import type { ApiErrorKind } from '../http/error-mapping';
import { HttpError } from '../http/http-error';
import { respondJson } from '../http/respond';

/** Connection failures of Postgres or Temporal: the request may be retried later (503). */
const UNAVAILABLE_CODES = new Set(['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EHOSTUNREACH', '57P01', '57P03', '53300']);

function isUnavailable(error: unknown): boolean {
  if (typeof error !== 'object' || error === null) return false;
  const { code, name } = error as { code?: unknown; name?: unknown };
  if (typeof code === 'string' && (UNAVAILABLE_CODES.has(code) || code.startsWith('08'))) return true;
  return name === 'ServiceError' || name === 'ConnectionError';
}

/** Maps every error to the one body shape; anything unexpected is logged and answered as P500. */
export function errorMiddleware(log: Logger): Middleware {
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
        log.warn(`${ctx.method} ${ctx.path}: ${String(error)}`);
      } else {
        kind = 'internal-error';
        message = undefined;
        log.error(`${ctx.method} ${ctx.path}: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`);
      }
      respondJson(ctx, HTTP_ERRORS[kind].status, errorBody(kind, message));
    }
  };
}
