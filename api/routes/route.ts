import type { z } from 'zod';
import type { ZodOpenApiParameters } from 'zod-openapi';
import type { ApiDependencies } from '../dependencies';
import type { ApiErrorKind } from '../http/error-mapping';
import type { ApiContext } from '../state';

/** Examples by name, as the document shows them. */
export type Examples = Readonly<Record<string, { summary: string; value: unknown }>>;

/** A route's success answer: what the handler writes and what the document shows. */
export interface RouteResponse<Body extends z.ZodType = z.ZodType> {
  status: 200 | 201;
  description: string;
  /** The body's schema; the e2e tests parse real answers with it. */
  body: Body;
  examples: Examples;
  /** Headers beyond those every answer carries (X-Request-Id, the rate-limit ones). */
  headers?: Record<string, z.ZodType>;
  /** A second success status with the same body (a POST that finds what it would create: 200 beside 201). */
  alternative?: { status: 200 | 201; description: string; examples: Examples };
}

/** A success answer without a body (a DELETE's 204). */
export interface EmptyRouteResponse {
  status: 204;
  description: string;
  body?: undefined;
  headers?: Record<string, z.ZodType>;
}

/** One route, declared once: app.ts registers it and openapi/paths.ts documents it, so a rule changes in one file. */
export interface Route {
  method: 'get' | 'post' | 'delete';
  /** Koa's form, `:name` for a path parameter; the document's `{name}` form is derived from it. */
  path: `/${string}`;
  /** Needs a partner API key, and counts against its rate limit. */
  authenticated: boolean;
  /** A GET that changes something (get-lock stores a lock): like a POST, it needs a `payments` key and draws on the writes quota. */
  changesState?: true;
  docs: {
    operationId: string;
    tag: 'Partner' | 'Crypto withdrawals' | 'Withdrawal address book';
    summary: string;
    description: string;
    /** The route's own error kinds; those of every route (and of every POST) are added. */
    errors: readonly ApiErrorKind[];
  };
  request: {
    /** Path parameters; a function when they depend on the current year (the history's do). */
    params?: NonNullable<ZodOpenApiParameters['path']> | ((currentYear: number) => NonNullable<ZodOpenApiParameters['path']>);
    query?: ZodOpenApiParameters['query'];
    body?: { schema: z.ZodType; examples: Examples };
  };
  response: RouteResponse | EmptyRouteResponse;
  /** The Koa middleware that answers, given the API's dependencies (once, when the app is built). */
  handler(deps: ApiDependencies): (ctx: ApiContext) => Promise<void>;
}

/** Whether a route changes something: a `read` key may not call it, and it counts against the partner's writes quota. */
export function changesState(route: Pick<Route, 'method' | 'changesState'>): boolean {
  return route.method !== 'get' || route.changesState === true;
}
