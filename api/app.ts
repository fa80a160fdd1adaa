import Router from '@koa/router';
import Koa from 'koa';
import type { ApiDependencies } from './dependencies';
import { authMiddleware } from './middleware/auth.middleware';
import { bodyMiddleware } from './middleware/body.middleware';
import { errorMiddleware } from './middleware/error.middleware';
import { balancesRoute } from './routes/balances.route';
import { networkFeeRoute } from './routes/network-fee.route';
import { rateLockRoute } from './routes/rate-lock.route';
import { transactionHistoryRoute } from './routes/transaction-history.route';

/** The HTTP API; every /v1 route authenticates first and is scoped to the key's partner. */
export function createApp(deps: ApiDependencies): Koa {
  const app = new Koa();
  app.proxy = true;
  const authenticate = authMiddleware(deps.readPool);
  const router = new Router();

  router.get('/health', (ctx) => {
    ctx.body = { status: 'ok' };
  });
  router.get('/v1/partner/balances', authenticate, balancesRoute(deps));
  router.get('/v1/partner/transaction-history/:month/:year', authenticate, transactionHistoryRoute(deps));
  router.get('/v1/partner/get-lock', authenticate, rateLockRoute(deps));
  router.get('/v1/crypto-withdrawal/get-network-fee', authenticate, networkFeeRoute(deps));

  app.use(errorMiddleware(deps.log));
  app.use(bodyMiddleware(deps.maxBodyBytes));
  app.use(router.routes());
  return app;
}
