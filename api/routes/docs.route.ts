import { readFile } from 'node:fs/promises';
import path from 'node:path';
import type { Context } from 'koa';
import { DomainError } from '../../core/errors';
import type { ApiContext } from '../state';
import {
  DOCS_CONTENT_SECURITY_POLICY,
  DOCS_INIT_SCRIPT,
  DOCS_INIT_SCRIPT_TEXT,
  DOCS_PAGE_HTML,
  SWAGGER_UI_ASSETS,
} from '../openapi/docs-page';

/** Where swagger-ui-dist is installed (its own entry point requires a browser). */
const SWAGGER_UI_FOLDER = path.dirname(require.resolve('swagger-ui-dist/package.json'));

/** GET /docs: the Swagger UI page on /v1/openapi.json; no authentication, no rate limit. */
export function docsPageRoute() {
  return (ctx: Context): void => {
    ctx.set('Content-Security-Policy', DOCS_CONTENT_SECURITY_POLICY);
    ctx.set('X-Content-Type-Options', 'nosniff');
    ctx.type = 'text/html; charset=utf-8';
    ctx.body = DOCS_PAGE_HTML;
  };
}

/** GET /docs/assets/:file: the page's few files (read once, kept in memory); anything else is 404. */
export function docsAssetRoute() {
  const files = new Map<string, Promise<Buffer>>();
  const load = (file: string): Promise<Buffer> => {
    let content = files.get(file);
    if (!content) {
      content =
        file === DOCS_INIT_SCRIPT
          ? Promise.resolve(Buffer.from(DOCS_INIT_SCRIPT_TEXT))
          : readFile(path.join(SWAGGER_UI_FOLDER, file)).catch((error: unknown) => {
              files.delete(file);
              throw error;
            });
      files.set(file, content);
    }
    return content;
  };
  const served = new Set<string>([...SWAGGER_UI_ASSETS, DOCS_INIT_SCRIPT]);

  return async (ctx: ApiContext): Promise<void> => {
    const file = ctx.params.file ?? '';
    // Only named files: no path from the request ever reaches the file system.
    if (!served.has(file)) throw new DomainError('not-found', `no route ${ctx.method} ${ctx.path}`);
    const content = await load(file);
    ctx.set('X-Content-Type-Options', 'nosniff');
    ctx.set('Cache-Control', 'public, max-age=3600');
    ctx.type = path.extname(file);
    ctx.body = content;
  };
}
