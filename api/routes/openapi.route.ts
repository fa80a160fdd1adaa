import type { Context } from 'koa';
import type { ApiDependencies } from '../dependencies';
import { respond } from '../http/respond';
import { openApiDocumentJson } from '../openapi/document';

/** GET /v1/openapi.json: the OpenAPI 3.1 document, without authentication or rate limit. */
export function openApiRoute(deps: Pick<ApiDependencies, 'clock'>) {
  return (ctx: Context): void => {
    // The history's year parameter depends on the current year: the document is rebuilt when it turns.
    respond(ctx, 200, openApiDocumentJson(deps.clock.now().getUTCFullYear()));
  };
}
