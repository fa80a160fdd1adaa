import type { AddressInfo } from 'node:net';
import http from 'node:http';
import pg from 'pg';
import type { Logger } from '../core/logger';
import type { EurRates } from '../core/rates';
import { createApp } from './app';
import { systemClock } from './dependencies';
import type { Clock } from './dependencies';
import { configuredRateSource } from './rate-source';

export interface ApiOptions {
  port: number;
  databaseUrl: string;
  /** Optional read replica for the read endpoints. */
  databaseReadUrl: string | undefined;
  eurRates: EurRates;
  maxBodyBytes: number;
  log: Logger;
  clock?: Clock;
}

export interface RunningApi {
  url: string;
  stop(): Promise<void>;
}

export async function startApi(options: ApiOptions): Promise<RunningApi> {
  const readPool = new pg.Pool({ connectionString: options.databaseReadUrl ?? options.databaseUrl, max: 20 });
  // An idle client that loses its server must not crash the process; the next query reports it.
  readPool.on('error', (error) => options.log.warn(`read pool: ${error.message}`));
  const app = createApp({
    readPool,
    rateSource: configuredRateSource(options.eurRates),
    clock: options.clock ?? systemClock,
    log: options.log,
    maxBodyBytes: options.maxBodyBytes,
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
      await readPool.end();
    },
  };
}
