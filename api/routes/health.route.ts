import type { Context } from 'koa';
import type { ApiDependencies } from '../dependencies';
import { respond } from '../http/respond';
import { requestOutcome } from '../metrics/request-outcome';

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

/**
 * GET /health/ready: the primary Postgres answers `select 1` and Temporal answers a system-info
 * call, each within two seconds; 503 names the one that failed. Outside authentication and rate
 * limits. The body says which failed, never why: the cause goes to the request's access-log line.
 * It also lists the rails this deployment simulates (SIMULATED_RAILS), ready or not.
 */
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
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<Check>((resolve) => {
    timer = setTimeout(() => resolve({ result: 'failed', error: new Error(`no answer within ${CHECK_TIMEOUT_MS} ms`) }), CHECK_TIMEOUT_MS);
  });
  try {
    return await Promise.race([
      probe().then(
        (): Check => ({ result: 'ok' }),
        (error: unknown): Check => ({ result: 'failed', error }),
      ),
      timeout,
    ]);
  } finally {
    clearTimeout(timer);
  }
}
