import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { WorkerStatus } from '@temporalio/worker';
import type pg from 'pg';
import type { Registry } from 'prom-client';
import { guardedByHost } from '../core/host-guard';
import { localUrl } from '../core/listen-address';
import type { Logger } from '../core/logger';
import type { Rail } from '../core/rails';
import type { EvmChainIdentityGuard } from '../activities/adapters/chain/evm/evm-chain-identity';
import { errorFields } from '../core/logger';

export interface Readiness {
  ready: boolean;
  /** Each check by name: `ok` or `failed`. */
  checks: Record<string, 'ok' | 'failed'>;
  /** Rails whose payments no bank or chain moves (SIMULATED_RAILS): said on every answer, ready or not. */
  simulatedRails: readonly Rail[];
  /** EVM networks whose node was last found on another chain than the recorded one: nothing is sent, settled or credited on them. */
  refusedChains: Array<{ network: string; reason: string; since: string }>;
}

export interface WorkerHttpServer {
  url: string;
  stop(): Promise<void>;
}

/** `/health/live`, `/health/ready` (503 unless ready) and `/metrics`: plain node:http, three read-only routes. */
export async function startWorkerHttpServer(options: {
  port: number;
  /** WORKER_HOST (production: every interface), HOST under `npm start`. */
  host: string;
  registry: Registry;
  readiness: () => Promise<Readiness>;
  log: Logger;
}): Promise<WorkerHttpServer> {
  const server = http.createServer(
    guardedByHost(
      (request, response) => {
        void answer(request.method ?? 'GET', (request.url ?? '/').split('?')[0] ?? '/', response).catch((error: unknown) => {
          options.log.error('worker HTTP: answer failed', errorFields(error));
          if (!response.headersSent) sendJson(response, 500, { status: 'error' });
          else response.destroy();
        });
      },
      { bindHost: options.host },
    ),
  );

  async function answer(method: string, path: string, response: http.ServerResponse): Promise<void> {
    if (method !== 'GET' && method !== 'HEAD') return sendJson(response, 405, { status: 'method not allowed' });
    switch (path) {
      case '/health':
      case '/health/live':
        return sendJson(response, 200, { status: 'ok' });
      case '/health/ready': {
        const readiness = await options.readiness();
        return sendJson(response, readiness.ready ? 200 : 503, {
          status: readiness.ready ? 'ready' : 'unavailable',
          checks: readiness.checks,
          simulatedRails: readiness.simulatedRails,
          ...(readiness.refusedChains.length > 0 ? { refusedChains: readiness.refusedChains } : {}),
        });
      }
      case '/metrics':
        return send(response, 200, options.registry.contentType, await options.registry.metrics());
      default:
        return sendJson(response, 404, { status: 'not found' });
    }
  }

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port, options.host, () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  return {
    url: localUrl(options.host, port),
    async stop() {
      await new Promise<void>((resolve) => server.close(() => resolve()));
      server.closeAllConnections();
    },
  };
}

/** A check answers within this or counts as failed. */
const CHECK_TIMEOUT_MS = 2_000;

/** Ready: both pollers poll, the database answers, and no EVM node was last found on another chain (an operator must act). */
export async function workerReadiness(
  status: () => WorkerStatus,
  pool: pg.Pool,
  simulatedRails: readonly Rail[],
  identityGuard?: Pick<EvmChainIdentityGuard, 'refused'>,
): Promise<Readiness> {
  const current = status();
  const polling = current.runState === 'RUNNING' && current.workflowPollerState === 'POLLING' && current.activityPollerState === 'POLLING';
  let timer: NodeJS.Timeout | undefined;
  const database = await Promise.race([
    pool.query('select 1').then(
      () => 'ok' as const,
      () => 'failed' as const,
    ),
    new Promise<'failed'>((resolve) => {
      timer = setTimeout(() => resolve('failed'), CHECK_TIMEOUT_MS);
    }),
  ]).finally(() => clearTimeout(timer));
  const refusedChains = (identityGuard?.refused() ?? []).map(({ network, reason, since }) => ({ network, reason, since }));
  const chainIdentity = refusedChains.length === 0 ? 'ok' : 'failed';
  return {
    ready: polling && database === 'ok' && chainIdentity === 'ok',
    checks: { polling: polling ? 'ok' : 'failed', postgres: database, chainIdentity },
    simulatedRails,
    refusedChains,
  };
}

function send(response: http.ServerResponse, status: number, contentType: string, body: string): void {
  response.writeHead(status, { 'content-type': contentType, 'cache-control': 'no-store' });
  response.end(body);
}

function sendJson(response: http.ServerResponse, status: number, body: object): void {
  send(response, status, 'application/json', JSON.stringify(body));
}
