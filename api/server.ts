import type { AddressInfo } from 'node:net';
import http from 'node:http';
import { Client } from '@temporalio/client';
import type pg from 'pg';
import type { Logger } from '../core/logger';
import { PLAIN_TEMPORAL_ACCESS, temporalConnectionOptions, temporalDataConverter } from '../core/temporal-connection';
import type { TemporalAccess } from '../core/temporal-connection';
import { DEFAULT_DATABASE_TIMEOUTS, poolConfig } from '../db/connection-settings';
import { endPool, openPool } from '../db/pool';
import type { DatabaseTimeouts } from '../db/connection-settings';
import { connectPatiently } from '../core/patient-connect';
import { connectClosable } from '../operations/temporal/closable-connection';
import { createAdmission } from '../operations/temporal/admission';
import { temporalBacklogReader } from '../operations/temporal/task-queue-backlog';
import type { EurRates } from '../core/rates';
import type { Rail } from '../core/rails';
import { localUrl } from '../core/listen-address';
import type { ListenAddress } from '../core/settings';
import type { ActiveApiKey } from '../core/api-keys';
import { findActiveApiKeyByHash } from '../db/queries/api-key.queries';
import { createApp } from './app';
import { createApiKeyCache } from './auth/api-key-cache';
import { createApiMetrics } from './metrics/api-metrics';
import type { ApiMetrics } from './metrics/api-metrics';
import { startMetricsServer } from './metrics/metrics-server';
import { systemClock } from './dependencies';
import type { Clock } from './dependencies';
import { configuredRateSource } from '../operations/rate-source';
import { DEFAULT_OPERATIONS_IN_FLIGHT_PER_PARTNER } from '../core/settings/declarations/api';
import { guardedByHost } from '../core/host-guard';

/** Longer than the idle timeout of the proxies put in front of APIs (60 s on the common load balancers). */
const KEEP_ALIVE_TIMEOUT_MS = 65_000;

export interface ApiOptions {
  port: number;
  /** The interface it listens on: API_HOST (production: every interface), HOST under `npm start`. */
  host: string;
  databaseUrl: string;
  /** Optional read replica for the read endpoints. */
  databaseReadUrl: string | undefined;
  temporalAddress: string;
  temporalNamespace: string;
  temporalTaskQueue: string;
  operationResponseTimeoutMs: number;
  eurRates: EurRates;
  maxBodyBytes: number;
  /** OPERATIONS_IN_FLIGHT_PER_PARTNER (absent: its default). */
  operationsInFlightPerPartner?: number;
  rateLimitPerSecond: number;
  rateLimitBurst: number;
  /** Requests that change something, per partner (0: no such quota). */
  rateLimitWritesPerSecond?: number;
  rateLimitWritesBurst?: number;
  /** Failed authentications per second a client address gets back (0: no limit), and at once. */
  authFailureLimitPerSecond: number;
  authFailureBurst: number;
  /** Lookups of keys the process does not know, from all addresses together, per second (absent or 0: no ceiling). */
  authFailureProcessLimitPerSecond?: number;
  /** TRUST_PROXY: the client address is X-Forwarded-For's last entry, not the socket's. */
  trustProxy: boolean;
  /** The internal listener of GET /metrics (port 0: any free one); absent, none is started. */
  apiMetrics?: ListenAddress;
  log: Logger;
  clock?: Clock;
  /** Postgres timeouts (default: db/connection-settings.ts). */
  databaseTimeouts?: DatabaseTimeouts;
  /** TLS, API key and payload encryption towards Temporal; absent, plain (tests of HTTP only). */
  temporal?: TemporalAccess;
  /** Rails whose payments no bank or chain moves (SIMULATED_RAILS), listed by /health/ready; absent, none. */
  simulatedRails?: readonly Rail[];
  /** WITHDRAWAL_ADDRESS_COOLING_OFF_MINUTES: a new address-book entry's cooling-off, for partners whose policy sets none. */
  withdrawalAddressCoolingOffMinutes: number;
}

export interface RunningApi {
  url: string;
  /** Where GET /metrics answers, when options.apiMetrics started its listener. */
  metricsUrl: string | undefined;
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
    const pool = openPool(poolConfig(options.databaseUrl, 10, timeouts));
    const readPool = options.databaseReadUrl ? openPool(poolConfig(options.databaseReadUrl, 20, timeouts)) : pool;
    // Deciding a timed-out POST (its tombstone) waits as long as a late reservation holds the row: a timeout there would
    // answer 503 undecided while money could still move. So its own pool, without lock or statement timeouts.
    const decisionPool = openPool(poolConfig(options.databaseUrl, 4, { ...timeouts, statementTimeoutMs: 0, lockTimeoutMs: 0 }));
    for (const each of new Set([pool, readPool, decisionPool])) {
      // An idle client that loses its server must not crash the process; the next query reports it.
      each.on('error', (error) => options.log.warn(`database pool: ${error.message}`));
      stops.push(() => endPool(each));
    }
    const { connection, close: closeConnection } = await connectPatiently(
      'api',
      () => connectClosable(temporalConnectionOptions(options.temporalAddress, temporalAccess)),
      options.log,
    );
    stops.push(closeConnection);
    const metrics = createApiMetrics({ readPool, log: options.log });
    // Keys are looked up on the primary: a revocation must never meet a replica that has not seen it.
    const apiKeys = createApiKeyCache({
      databaseUrl: options.databaseUrl,
      lookup: (keyHash) => countedKeyLookup(pool, keyHash, metrics),
      log: options.log,
      ...(options.clock ? { clock: options.clock } : {}),
    });
    await apiKeys.start();
    stops.push(() => apiKeys.stop());
    const client = new Client({ connection, namespace: options.temporalNamespace, dataConverter: temporalDataConverter(temporalAccess) });
    const app = createApp({
      pool,
      readPool,
      temporal: {
        client,
        taskQueue: options.temporalTaskQueue,
        responseTimeoutMs: options.operationResponseTimeoutMs,
        pool: decisionPool,
        admission: createAdmission({
          readBacklog: temporalBacklogReader(client, options.temporalTaskQueue),
          responseTimeoutMs: options.operationResponseTimeoutMs,
          maxInFlightPerPartner: options.operationsInFlightPerPartner ?? DEFAULT_OPERATIONS_IN_FLIGHT_PER_PARTNER,
          log: options.log,
        }),
      },
      rateSource: configuredRateSource(options.eurRates),
      clock: options.clock ?? systemClock,
      log: options.log,
      maxBodyBytes: options.maxBodyBytes,
      rateLimit: {
        perSecond: options.rateLimitPerSecond,
        burst: options.rateLimitBurst,
        writes: { perSecond: options.rateLimitWritesPerSecond ?? 0, burst: options.rateLimitWritesBurst ?? 0 },
      },
      authFailureLimit: {
        perSecond: options.authFailureLimitPerSecond,
        burst: options.authFailureBurst,
        processPerSecond: options.authFailureProcessLimitPerSecond ?? 0,
      },
      trustProxy: options.trustProxy,
      apiKeys,
      metrics,
      simulatedRails: options.simulatedRails ?? [],
      withdrawalAddressCoolingOffMinutes: options.withdrawalAddressCoolingOffMinutes,
    });
    // Behind a proxy (TRUST_PROXY) the Host is the one partners use, which only the proxy knows.
    const server = http.createServer(options.trustProxy ? app.callback() : guardedByHost(app.callback(), { bindHost: options.host }));
    // Idle connections are closed by the client first (undici 4 s, proxies 60 s): the API closing one just as the client
    // sends on it would answer that request with a reset.
    server.keepAliveTimeout = KEEP_ALIVE_TIMEOUT_MS;
    server.headersTimeout = KEEP_ALIVE_TIMEOUT_MS + 1_000;
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(options.port, options.host, () => resolve());
    });
    stops.push(async () => {
      await new Promise<void>((resolve) => server.close(() => resolve()));
      server.closeAllConnections();
    });
    const { port } = server.address() as AddressInfo;
    let metricsUrl: string | undefined;
    if (options.apiMetrics) {
      const metricsServer = await startMetricsServer({ ...options.apiMetrics, registry: metrics.registry, log: options.log });
      stops.push(() => metricsServer.stop());
      metricsUrl = metricsServer.url;
    }
    return { url: localUrl(options.host, port), metricsUrl, stop: stopAll };
  } catch (error) {
    await stopAll();
    throw error;
  }
}

/** The database's answer for a key the cache could not give, counted by result (payments_api_key_lookups_total). */
async function countedKeyLookup(pool: pg.Pool, keyHash: string, metrics: ApiMetrics): Promise<ActiveApiKey | undefined> {
  try {
    const key = await findActiveApiKeyByHash(pool, keyHash);
    metrics.countKeyLookup(key === undefined ? 'unknown' : 'active');
    return key;
  } catch (error) {
    metrics.countKeyLookup('failed');
    throw error;
  }
}
