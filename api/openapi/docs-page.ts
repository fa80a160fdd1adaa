/** The /docs page: Swagger UI from swagger-ui-dist, served under /docs/assets/ so it loads nothing from elsewhere. */
export const DOCS_ASSETS_PATH = '/docs/assets';
export const OPENAPI_PATH = '/v1/openapi.json';

/** The files of swagger-ui-dist the page uses: nothing else in the package is served. */
export const SWAGGER_UI_ASSETS = ['swagger-ui-bundle.js', 'swagger-ui.css', 'favicon-32x32.png', 'favicon-16x16.png'] as const;

/** Our own script that starts Swagger UI: a file, not inline, so the CSP needs no 'unsafe-inline' scripts. */
export const DOCS_INIT_SCRIPT = 'docs-init.js';

/** Everything from this server only, no framing. Swagger UI sets style attributes at run time: 'unsafe-inline' for styles. */
export const DOCS_CONTENT_SECURITY_POLICY = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self' 'unsafe-inline'",
  "img-src 'self' data:",
  "connect-src 'self'",
  "font-src 'self'",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
].join('; ');

export const DOCS_PAGE_HTML = `<!doctype html>
<html lang="en">
  <head>
    <meta charset="utf-8">
    <meta name="viewport" content="width=device-width, initial-scale=1">
    <title>Partner payments API</title>
    <link rel="stylesheet" href="${DOCS_ASSETS_PATH}/swagger-ui.css">
    <link rel="icon" type="image/png" href="${DOCS_ASSETS_PATH}/favicon-32x32.png" sizes="32x32">
    <link rel="icon" type="image/png" href="${DOCS_ASSETS_PATH}/favicon-16x16.png" sizes="16x16">
  </head>
  <body>
    <div id="swagger-ui"></div>
    <script src="${DOCS_ASSETS_PATH}/swagger-ui-bundle.js"></script>
    <script src="${DOCS_ASSETS_PATH}/${DOCS_INIT_SCRIPT}"></script>
  </body>
</html>
`;

// validatorUrl null: Swagger UI would otherwise send the document to validator.swagger.io.
export const DOCS_INIT_SCRIPT_TEXT = `window.addEventListener('load', function () {
  window.ui = SwaggerUIBundle({
    url: '${OPENAPI_PATH}',
    dom_id: '#swagger-ui',
    deepLinking: true,
    validatorUrl: null,
    presets: [SwaggerUIBundle.presets.apis],
    layout: 'BaseLayout',
  });
});
`;
