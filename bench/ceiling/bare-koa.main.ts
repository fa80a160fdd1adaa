/**
 * The HTTP ceiling: bare Koa 3, no router, no middleware, answering each configured path with
 * the bytes and headers the project's API answered it once. What the project does beyond this
 * (authentication, queries, JSON) is what the ratio measures.
 */
import fs from 'node:fs';
import http from 'node:http';
import Koa from 'koa';

interface Route {
  headers: Record<string, string>;
  body: Buffer;
}

function loadRoutes(file: string): Map<string, Route> {
  const parsed = JSON.parse(fs.readFileSync(file, 'utf8')) as Record<string, { headers: Record<string, string>; bodyBase64: string }>;
  return new Map(
    Object.entries(parsed).map(([path, route]) => [path, { headers: route.headers, body: Buffer.from(route.bodyBase64, 'base64') }]),
  );
}

const routes = loadRoutes(process.env.ROUTES_FILE ?? '');
const app = new Koa();
app.use((ctx) => {
  const route = routes.get(ctx.url);
  if (!route) {
    ctx.status = 404;
    return;
  }
  ctx.set(route.headers);
  ctx.body = route.body;
});

const server = http.createServer(app.callback());
server.listen(Number(process.env.PORT), '127.0.0.1');
const stop = () => {
  server.close(() => process.exit(0));
  server.closeAllConnections();
};
process.on('SIGTERM', stop);
process.on('SIGINT', stop);
