import type { AddressInfo } from 'node:net';
import http from 'node:http';
import { Client, Connection } from '@temporalio/client';
import pg from 'pg';
import type { Logger } from '../core/logger';
import type { EurRates } from '../core/rates';
import { createApp } from './app';
import { systemClock } from './dependencies';
import type { Clock } from './dependencies';
import { configuredRateSource } from '../operations/rate-source';

export interface ApiOptions {
  port: number;
  databaseUrl: string;
  /** Optional read replica for the read endpoints. */
  databaseReadUrl: string | undefined;
  temporalAddress: string;
  temporalNamespace: string;
  temporalTaskQueue: string;
  operationResponseTimeoutMs: number;
  eurRates: EurRates;
  maxBodyBytes: number;
  rateLimitPerSecond: number;
  rateLimitBurst: number;
  log: Logger;
  clock?: Clock;
}

export interface RunningApi {
  url: string;
  stop(): Promise<void>;
}

export async function startApi(options: ApiOptions): Promise<RunningApi> {
  const pool = new pg.Pool({ connectionString: options.databaseUrl, max: 10 });
  const readPool = options.databaseReadUrl ? new pg.Pool({ connectionString: options.databaseReadUrl, max: 20 }) : pool;
  // An idle client that loses its server must not crash the process; the next query reports it.
  for (const each of new Set([pool, readPool])) each.on('error', (error) => options.log.warn(`database pool: ${error.message}`));
  const connection = await Connection.connect({ address: options.temporalAddress });
  const app = createApp({
    pool,
    readPool,
    temporal: {
      client: new Client({ connection, namespace: options.temporalNamespace }),
      taskQueue: options.temporalTaskQueue,
      responseTimeoutMs: options.operationResponseTimeoutMs,
      pool,
    },
    rateSource: configuredRateSource(options.eurRates),
    clock: options.clock ?? systemClock,
    log: options.log,
    maxBodyBytes: options.maxBodyBytes,
    rateLimit: { perSecond: options.rateLimitPerSecond, burst: options.rateLimitBurst },
  });
  const server = http.createServer(app.callback());
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port, '0.0.0.0', () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    async stop() {
      await new Promise<void>((resolve) => server.close(() => resolve()));
      server.closeAllConnections();
      await connection.close();
      for (const each of new Set([pool, readPool])) await each.end();
    },
  };
}
