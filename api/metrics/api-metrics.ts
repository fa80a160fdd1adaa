import type { Middleware } from 'koa';
import type pg from 'pg';
import { Counter, Histogram, Registry, collectDefaultMetrics } from 'prom-client';
import type { Logger } from '../../core/logger';
import { registerLedgerGauges } from './ledger-gauges';
import { requestOutcome, routeOf, whenResponded } from './request-outcome';

/** Seconds; from a cached read to a POST that waits for its workflow. */
const LATENCY_BUCKETS_SECONDS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30];

export interface ApiMetrics {
  /** Served by the internal listener (api/metrics/metrics-server.ts), never on the public port. */
  readonly registry: Registry;
  /** Counts every request once it is answered; the outermost middleware but the request id. */
  readonly middleware: Middleware;
  /** Counts an API key looked up in the database, by its answer: what the key cache and the failure limit save. */
  countKeyLookup(result: 'active' | 'unknown' | 'failed'): void;
}

/** A registry per app (tests run several). Bounded labels: the route template (`unmatched` if none), never the raw URL; P-codes. */
export function createApiMetrics(options: { readPool: pg.Pool; log: Logger }): ApiMetrics {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry });
  const requests = new Counter({
    name: 'payments_http_requests_total',
    help: 'HTTP requests answered, by route template, method, status and error code (empty when none)',
    labelNames: ['route', 'method', 'status', 'code'] as const,
    registers: [registry],
  });
  const latency = new Histogram({
    name: 'payments_http_request_duration_seconds',
    help: 'Time to answer an HTTP request, by route template and method',
    labelNames: ['route', 'method'] as const,
    buckets: LATENCY_BUCKETS_SECONDS,
    registers: [registry],
  });
  const started = new Counter({
    name: 'payments_operations_started_total',
    help: 'Money-moving operations started (or joined) by a request, by type; replays not counted',
    labelNames: ['operation'] as const,
    registers: [registry],
  });
  const answered = new Counter({
    name: 'payments_operations_answered_total',
    help: 'Answers to money-moving requests, by type, code (OK or the P-code) and whether replayed from the idempotency store',
    labelNames: ['operation', 'code', 'replayed'] as const,
    registers: [registry],
  });
  const keyLookups = new Counter({
    name: 'payments_api_key_lookups_total',
    help: 'API keys looked up in the database (not answered from memory), by result: active, unknown or failed',
    labelNames: ['result'] as const,
    registers: [registry],
  });
  registerLedgerGauges(registry, options.readPool, options.log);

  const middleware: Middleware = async (ctx, next) => {
    const stopTimer = latency.startTimer();
    try {
      await next();
    } finally {
      whenResponded(ctx, () => {
        const route = routeOf(ctx);
        const outcome = requestOutcome(ctx);
        stopTimer({ route, method: ctx.method });
        requests.inc({ route, method: ctx.method, status: String(ctx.status), code: outcome.errorCode ?? '' });
        if (outcome.operation) {
          if (outcome.performed) started.inc({ operation: outcome.operation });
          answered.inc({ operation: outcome.operation, code: outcome.errorCode ?? 'OK', replayed: String(outcome.replayed === true) });
        }
      });
    }
  };

  return { registry, middleware, countKeyLookup: (result) => keyLookups.inc({ result }) };
}
