import { z } from 'zod';
import type { ZodOpenApiOperationObject, ZodOpenApiParameters, ZodOpenApiPathsObject, ZodOpenApiResponsesObject } from 'zod-openapi';
import type { ApiErrorKind } from '../http/error-mapping';
import { ROUTES } from '../routes';
import { changesState } from '../routes/route';
import type { Route } from '../routes/route';
import { EVERY_POST_ERRORS, EVERY_ROUTE_ERRORS, errorResponses } from './error-responses';
import { idempotencyKeyHeader, idempotentReplayedHeader, requestIdHeader, responseHeaders } from './headers';

/** A route as the document describes it (the e2e test compares these with what the router serves). */
export interface DocumentedRoute {
  method: Route['method'];
  /** OpenAPI's form: `{name}` for a path parameter. */
  path: string;
  operation: ZodOpenApiOperationObject;
}

/** Every route of api/routes, in its order, as the document describes it. */
export function documentedRoutes(currentYear: number, routes: readonly Route[] = ROUTES): DocumentedRoute[] {
  return routes.map((route) => ({ method: route.method, path: openApiPath(route.path), operation: operationOf(route, currentYear) }));
}

export function pathsOf(routes: readonly DocumentedRoute[]): ZodOpenApiPathsObject {
  const paths: ZodOpenApiPathsObject = {};
  for (const route of routes) paths[route.path] = { ...paths[route.path], [route.method]: route.operation };
  return paths;
}

/** Koa's `:name` becomes OpenAPI's `{name}`. */
function openApiPath(koaPath: string): string {
  return koaPath.replace(/:(\w+)/g, '{$1}');
}

/** Authentication and the partner's rate limit come together (app.ts): a public route answers neither. */
const AUTHENTICATION_ERRORS: readonly ApiErrorKind[] = ['unauthorized', 'too-many-requests'];

/** A key's scope is checked on every authenticated route that does more than read (api/middleware/key-scope.middleware.ts). */
const SCOPE_ERRORS: readonly ApiErrorKind[] = ['key-not-permitted'];

/** The route's own errors, then every POST's, then every route's. */
function errorsOf(route: Route): ApiErrorKind[] {
  const everyRoute = route.authenticated ? EVERY_ROUTE_ERRORS : EVERY_ROUTE_ERRORS.filter((kind) => !AUTHENTICATION_ERRORS.includes(kind));
  const scope = route.authenticated && changesState(route) ? SCOPE_ERRORS : [];
  return [...route.docs.errors, ...(route.request.body ? EVERY_POST_ERRORS : []), ...scope, ...everyRoute];
}

/** The route's success answer (and its alternative, with the same body); a 204 has no content. */
function successResponses(response: Route['response'], headers: Record<string, z.ZodType>): ZodOpenApiResponsesObject {
  if (response.status === 204) return { '204': { description: response.description, headers: responseHeaders(204, headers) } };
  const { body } = response;
  const answers = [response, ...(response.alternative ? [response.alternative] : [])];
  return Object.fromEntries(
    answers.map((answer) => [
      String(answer.status),
      {
        description: answer.description,
        headers: responseHeaders(answer.status, headers),
        content: { 'application/json': { schema: body, examples: answer.examples } },
      },
    ]),
  );
}

function operationOf(route: Route, currentYear: number): ZodOpenApiOperationObject {
  const { docs, request, response } = route;
  const post = request.body !== undefined;
  const requestParams: ZodOpenApiParameters = {
    ...(request.params ? { path: typeof request.params === 'function' ? request.params(currentYear) : request.params } : {}),
    ...(request.query ? { query: request.query } : {}),
    header: z.object({ 'X-Request-Id': requestIdHeader, ...(post ? { 'Idempotency-Key': idempotencyKeyHeader } : {}) }),
  };
  const successHeaders = { ...response.headers, ...(post ? { 'Idempotent-Replayed': idempotentReplayedHeader.optional() } : {}) };
  const responses: ZodOpenApiResponsesObject = { ...successResponses(response, successHeaders), ...errorResponses(errorsOf(route)) };
  return {
    operationId: docs.operationId,
    tags: [docs.tag],
    summary: docs.summary,
    description: docs.description,
    // The document's default is the partner API key; a public route overrides it with none.
    ...(route.authenticated ? {} : { security: [] }),
    requestParams,
    ...(request.body ? { requestBody: { required: true, content: { 'application/json': request.body } } } : {}),
    responses,
  };
}
