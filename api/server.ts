import type { AddressInfo } from 'node:net';
import http from 'node:http';
import { Client, Connection } from '@temporalio/client';
import pg from 'pg';
import type { Logger } from '../core/logger';
import { PLAIN_TEMPORAL_ACCESS, temporalConnectionOptions, temporalDataConverter } from '../core/temporal-connection';
import type { TemporalAccess } from '../core/temporal-connection';
import { DEFAULT_DATABASE_TIMEOUTS, poolConfig } from '../db/connection-settings';
import type { DatabaseTimeouts } from '../db/connection-settings';
import type { EurRates } from '../core/rates';
import type { Rail } from '../core/rails';
import { findPartnerIdByKeyHash } from '../db/queries/api-key.queries';
import { createApp } from './app';
import { createApiKeyCache } from './auth/api-key-cache';
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
  /** Postgres timeouts (default: db/connection-settings.ts). */
  databaseTimeouts?: DatabaseTimeouts;
  /** TLS, API key and payload encryption towards Temporal; absent, plain (tests of HTTP only). */
  temporal?: TemporalAccess;
  /** Rails whose payments no bank or chain moves (SIMULATED_RAILS), listed by /health/ready; absent, none. */
  simulatedRails?: readonly Rail[];
}

export interface RunningApi {
  url: string;
  stop(): Promise<void>;
}

export async function startApi(options: ApiOptions): Promise<RunningApi> {
  // What has started, stopped in reverse order by stop() or when a later step fails to start.
  const stops: Array<() => Promise<void>> = [];
  const stopAll = async () => {
    for (const stop of stops.splice(0).reverse()) await stop().catch((error: unknown) => options.log.warn(`API stop: ${String(error)}`));
  };
  try {
    const timeouts = options.databaseTimeouts ?? DEFAULT_DATABASE_TIMEOUTS;
    const temporalAccess = options.temporal ?? PLAIN_TEMPORAL_ACCESS;
    const pool = new pg.Pool(poolConfig(options.databaseUrl, 10, timeouts));
    const readPool = options.databaseReadUrl ? new pg.Pool(poolConfig(options.databaseReadUrl, 20, timeouts)) : pool;
    // The tombstone that decides a timed-out POST waits as long as a late reservation holds its
    // row: a lock or statement timeout there would answer 503 without deciding, and the money
    // could still move. Its own pool, with no lock or statement timeout (connecting still times out).
    const decisionPool = new pg.Pool(poolConfig(options.databaseUrl, 4, { ...timeouts, statementTimeoutMs: 0, lockTimeoutMs: 0 }));
    for (const each of new Set([pool, readPool, decisionPool])) {
      // An idle client that loses its server must not crash the process; the next query reports it.
      each.on('error', (error) => options.log.warn(`database pool: ${error.message}`));
      stops.push(() => each.end());
    }
    const connection = await Connection.connect(temporalConnectionOptions(options.temporalAddress, temporalAccess));
    stops.push(() => connection.close());
    // Keys are looked up on the primary: a revocation must never meet a replica that has not seen it.
    const apiKeys = createApiKeyCache({
      databaseUrl: options.databaseUrl,
      lookup: (keyHash) => findPartnerIdByKeyHash(pool, keyHash),
      log: options.log,
    });
    await apiKeys.start();
    stops.push(() => apiKeys.stop());
    const app = createApp({
      pool,
      readPool,
      temporal: {
        client: new Client({ connection, namespace: options.temporalNamespace, dataConverter: temporalDataConverter(temporalAccess) }),
        taskQueue: options.temporalTaskQueue,
        responseTimeoutMs: options.operationResponseTimeoutMs,
        pool: decisionPool,
      },
      rateSource: configuredRateSource(options.eurRates),
      clock: options.clock ?? systemClock,
      log: options.log,
      maxBodyBytes: options.maxBodyBytes,
      rateLimit: { perSecond: options.rateLimitPerSecond, burst: options.rateLimitBurst },
      apiKeys,
      simulatedRails: options.simulatedRails ?? [],
    });
    const server = http.createServer(app.callback());
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(options.port, '0.0.0.0', () => resolve());
    });
    stops.push(async () => {
      await new Promise<void>((resolve) => server.close(() => resolve()));
      server.closeAllConnections();
    });
    const { port } = server.address() as AddressInfo;
    return { url: `http://127.0.0.1:${port}`, stop: stopAll };
  } catch (error) {
    await stopAll();
    throw error;
  }
}
