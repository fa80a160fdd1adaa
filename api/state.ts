import type { DefaultContext } from 'koa';
import type { RouterContext } from '@koa/router';
import type { ApiKeyScope } from '../core/api-keys';

/** What the middleware puts in ctx.state before a route runs. */
export interface ApiState {
  /** Set by the auth middleware: every query after it is scoped to this partner. */
  partnerId: string;
  /** Set by the auth middleware: the key the request came with (never the key itself). */
  apiKey: { apiKeyId: string; scope: ApiKeyScope };
  /** Set by the body middleware: the losslessly parsed JSON body of a POST. */
  body: unknown;
}

export type ApiContext = RouterContext<ApiState, DefaultContext>;
