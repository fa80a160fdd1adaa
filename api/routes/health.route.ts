import type { Context } from 'koa';
import type { ApiDependencies } from '../dependencies';
import { respond } from '../http/respond';
import { requestOutcome } from '../metrics/request-outcome';
import { withTimeout } from '../with-timeout';

/** A readiness check answers within this or counts as failed: a load balancer must not hang on us. */
const CHECK_TIMEOUT_MS = 2_000;

interface Check {
  result: 'ok' | 'failed';
  error?: unknown;
}

/** GET /health/live (and /health, its old name): the process runs and answers HTTP. Nothing else is checked. */
export function liveRoute() {
  return (ctx: Context): void => {
    respond(ctx, 200, { status: 'ok' });
  };
}

/** GET /health/ready: Postgres `select 1` and Temporal's system info, each within 2 s; a 503 says which failed (why: the access log). */
export function readyRoute(deps: Pick<ApiDependencies, 'pool' | 'temporal' | 'simulatedRails'>) {
  return async (ctx: Context): Promise<void> => {
    const [postgres, temporal] = await Promise.all([
      check(() => deps.pool.query('select 1')),
      check(() => {
        const { client } = deps.temporal;
        return client.connection.withDeadline(Date.now() + CHECK_TIMEOUT_MS, () => client.workflowService.getSystemInfo({}));
      }),
    ]);
    const ready = postgres.result === 'ok' && temporal.result === 'ok';
    const cause = postgres.error ?? temporal.error;
    if (cause !== undefined) requestOutcome(ctx).error = cause;
    ctx.set('Cache-Control', 'no-store');
    respond(ctx, ready ? 200 : 503, {
      status: ready ? 'ready' : 'unavailable',
      checks: { postgres: postgres.result, temporal: temporal.result },
      simulatedRails: deps.simulatedRails ?? [],
    });
  };
}

async function check(probe: () => Promise<unknown>): Promise<Check> {
  return withTimeout(probe(), CHECK_TIMEOUT_MS).then(
    (): Check => ({ result: 'ok' }),
    (error: unknown): Check => ({ result: 'failed', error }),
  );
}
