import type { DefaultContext } from 'koa';
import type { RouterContext } from '@koa/router';

/** What the middleware puts in ctx.state before a route runs. */
export interface ApiState {
  /** Set by the auth middleware: every query after it is scoped to this partner. */
  partnerId: string;
  /** Set by the body middleware: the losslessly parsed JSON body of a POST. */
  body: unknown;
}

export type ApiContext = RouterContext<ApiState, DefaultContext>;
