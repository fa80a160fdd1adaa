import Router from '@koa/router';
import compose from 'koa-compose';
import Koa from 'koa';
import { findActiveApiKeyByHash, LAST_USED_RESOLUTION_MS, recordApiKeyUse } from '../db/queries/api-key.queries';
import type { ApiDependencies } from './dependencies';
import type { ApiState } from './state';
import { createKeyUsage } from './auth/key-usage';
import { authMiddleware } from './middleware/auth.middleware';
import { bodyMiddleware } from './middleware/body.middleware';
import { accessLogMiddleware } from './middleware/access-log.middleware';
import { errorMiddleware } from './middleware/error.middleware';
import { keyScopeMiddleware } from './middleware/key-scope.middleware';
import { requestIdMiddleware } from './middleware/request-id.middleware';
import { createApiMetrics } from './metrics/api-metrics';
import { liveRoute, readyRoute } from './routes/health.route';
import { docsAssetRoute, docsPageRoute } from './routes/docs.route';
import { openApiRoute } from './routes/openapi.route';
import { createRateLimiter } from './middleware/rate-limit.middleware';
import { ROUTES } from './routes';
import { changesState } from './routes/route';

/** The HTTP API; every /v1 route authenticates first and is scoped to the key's partner. */
export function createApp(deps: ApiDependencies): Koa {
  const app = new Koa<ApiState>();
  // Behind a proxy (TRUST_PROXY) the client is X-Forwarded-For's last entry, the proxy's; earlier ones the client wrote.
  app.proxy = deps.trustProxy ?? false;
  app.maxIpsCount = 1;
  const apiKeys = deps.apiKeys ?? {
    keyFor: (keyHash: string) => findActiveApiKeyByHash(deps.pool, keyHash),
    knownKeyFor: () => undefined,
  };
  const keyUsage = createKeyUsage({
    record: (apiKeyId, usedAt) => recordApiKeyUse(deps.pool, apiKeyId, usedAt),
    resolutionMs: LAST_USED_RESOLUTION_MS,
    log: deps.log,
    clock: deps.clock,
  });
  const authenticated = authMiddleware(apiKeys, deps.authFailureLimit ?? { perSecond: 0, burst: 0 }, deps.clock, keyUsage);
  const rateLimited = createRateLimiter(deps.rateLimit, deps.clock);
  // Authenticate, hold the key to its scope, then limit: a request the key may not make spends no quota.
  const authenticate = (writes: boolean) => compose([authenticated, keyScopeMiddleware(writes), rateLimited(writes)]);
  const router = new Router<ApiState>();

  // Probes, outside authentication and rate limits; /metrics has an internal listener of its own (metrics-server.ts).
  const metrics = deps.metrics ?? createApiMetrics({ readPool: deps.readPool, log: deps.log });
  router.get('/health', liveRoute());
  router.get('/health/live', liveRoute());
  router.get('/health/ready', readyRoute(deps));
  // The API's description: public like the spec it describes.
  router.get('/v1/openapi.json', openApiRoute(deps));
  router.get('/docs', docsPageRoute());
  router.get('/docs/assets/:file', docsAssetRoute());
  for (const route of ROUTES) {
    const handler = route.handler(deps);
    if (route.authenticated) router[route.method](route.path, authenticate(changesState(route)), handler);
    else router[route.method](route.path, handler);
  }

  // Only failures after the headers were sent arrive here (a streamed body failed, a client left): log the cut-short response.
  app.on('error', (error: Error, ctx?: Koa.Context) =>
    deps.log.warn(`${ctx?.method ?? ''} ${ctx?.path ?? ''}: response cut short: ${error.message}`, {
      requestId: ctx?.response.get('x-request-id'),
    }),
  );
  // The request id first (every response and log line carries it), then what observes the answer.
  app.use(requestIdMiddleware());
  app.use(metrics.middleware);
  app.use(accessLogMiddleware(deps.log));
  app.use(errorMiddleware());
  app.use(bodyMiddleware(deps.maxBodyBytes));
  app.use(router.routes());
  return app;
}
