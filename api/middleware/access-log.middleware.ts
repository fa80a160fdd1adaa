import type { Middleware } from 'koa';
import { errorFields } from '../../core/logger';
import type { LogFields, Logger } from '../../core/logger';
import { requestOutcome, routeOf, whenResponded } from '../metrics/request-outcome';

/** Probes answered every few seconds by load balancers and orchestrators: at debug while they succeed. */
const PROBE_ROUTES = new Set(['/health', '/health/live', '/health/ready']);

/** One line per answered request: 4xx at info, 5xx at error (with the stack if unexpected). Never bodies: names, IBANs, addresses. */
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
