import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Registry } from 'prom-client';
import { guardedByHost } from '../../core/host-guard';
import { localUrl } from '../../core/listen-address';
import type { Logger } from '../../core/logger';
import { errorFields } from '../../core/logger';

export interface MetricsServerOptions {
  /** 0: any free port (tests). */
  port: number;
  /** 127.0.0.1 by default: a scraper on another host needs an internal interface, never the public one. */
  host: string;
  registry: Registry;
  log: Logger;
}

export interface RunningMetricsServer {
  url: string;
  stop(): Promise<void>;
}

/** `GET /metrics` on its own listener (API_METRICS_HOST:PORT): rates, held funds and internals are no partner's business. */
export async function startMetricsServer(options: MetricsServerOptions): Promise<RunningMetricsServer> {
  const server = http.createServer(
    guardedByHost(
      (request, response) => {
        const path = (request.url ?? '/').split('?')[0];
        if (request.method !== 'GET' && request.method !== 'HEAD') return send(response, 405, 'text/plain', 'GET /metrics only\n');
        if (path !== '/metrics') return send(response, 404, 'text/plain', 'not found: GET /metrics\n');
        options.registry.metrics().then(
          (page) => send(response, 200, options.registry.contentType, page),
          (error: unknown) => {
            options.log.error('API metrics: the page could not be written', errorFields(error));
            send(response, 500, 'text/plain', 'metrics unavailable\n');
          },
        );
      },
      { bindHost: options.host },
    ),
  );
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port, options.host, () => resolve());
  });
  const { address, port } = server.address() as AddressInfo;
  return {
    url: localUrl(address, port),
    async stop() {
      await new Promise<void>((resolve) => server.close(() => resolve()));
      server.closeAllConnections();
    },
  };
}

function send(response: http.ServerResponse, status: number, contentType: string, body: string): void {
  response.writeHead(status, { 'content-type': contentType, 'cache-control': 'no-store' });
  response.end(body);
}
