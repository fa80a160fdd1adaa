import type { Middleware } from 'koa';
import { errorFields } from '../../core/logger';
import type { LogFields, Logger } from '../../core/logger';
import { requestOutcome, routeOf, whenResponded } from '../metrics/request-outcome';

/** Probes answered every few seconds by load balancers and orchestrators: at debug while they succeed. */
const PROBE_ROUTES = new Set(['/health', '/health/live', '/health/ready']);

/**
 * One line per request, once it is answered: method, route template, status, error code and
 * duration, with the request id (and the partner, once authenticated). A refusal (4xx) is a
 * normal answer and logs at info; a 5xx logs at error, with the stack of an unexpected error.
 * Bodies are never logged: they carry names, IBANs and addresses.
 */
export function accessLogMiddleware(log: Logger): Middleware {
  return async (ctx, next) => {
    const startedAt = process.hrtime.bigint();
    try {
      await next();
    } finally {
      const requestId = ctx.response.get('x-request-id');
      whenResponded(ctx, () => {
        const outcome = requestOutcome(ctx);
        const status = ctx.status;
        const route = routeOf(ctx);
        const fields: LogFields = {
          requestId,
          method: ctx.method,
          route,
          path: ctx.path,
          status,
          durationMs: Number((process.hrtime.bigint() - startedAt) / 1000n) / 1000,
          ...(outcome.errorCode ? { errorCode: outcome.errorCode } : {}),
          ...(typeof ctx.state.partnerId === 'string' ? { partnerId: ctx.state.partnerId } : {}),
          ...(outcome.replayed ? { replayed: true } : {}),
        };
        const message = `${ctx.method} ${route} ${status}`;
        if (status >= 500)
          log.error(message, { ...fields, ...(outcome.error === undefined ? {} : errorFields(outcome.error, status === 500)) });
        else if (PROBE_ROUTES.has(route) && status < 400) log.debug(message, fields);
        else log.info(message, fields);
      });
    }
  };
}
