import { startApi } from '../../api/server';
import type { DatabaseTimeouts } from '../../core/database-timeouts';
import { testTemporalAccess } from './temporal-access';
import type { RunningApi } from '../../api/server';
import type { Clock } from '../../api/dependencies';
import { createLogger } from '../../core/logger';
import { DEFAULT_EUR_RATES } from '../../core/rates';
import type { EurRates } from '../../core/rates';
import { PAYMENT_SETTINGS } from '../../core/settings/declarations/payments';
import { testStack } from './stack';

/** WITHDRAWAL_ADDRESS_COOLING_OFF_MINUTES unset, as the API starts in production. */
const DEFAULT_COOLING_OFF_MINUTES = PAYMENT_SETTINGS.withdrawalAddressCoolingOffMinutes.schema.parse(undefined);

export interface TestResponse {
  status: number;
  /** The raw body: exact-number assertions read the digits from here. */
  text: string;
  json: any; // eslint-disable-line @typescript-eslint/no-explicit-any
  headers: Headers;
}

export interface TestApi {
  url: string;
  /** The internal /metrics listener's address (options.metrics), else undefined. */
  metricsUrl: string | undefined;
  request(
    method: string,
    path: string,
    options?: { apiKey?: string; body?: string | object; headers?: Record<string, string> },
  ): Promise<TestResponse>;
  stop(): Promise<void>;
}

export interface StartTestApiOptions {
  clock?: Clock;
  databaseUrl?: string;
  maxBodyBytes?: number;
  /** The task queue its workflows start on (default: the stack worker's). */
  taskQueue?: string;
  responseTimeoutMs?: number;
  rateLimit?: { perSecond: number; burst: number; writes?: { perSecond: number; burst: number } };
  /** Failed authentications per client address (default: no limit, like the rate limit here). */
  authFailureLimit?: { perSecond: number; burst: number; processPerSecond?: number };
  trustProxy?: boolean;
  /** Start the internal /metrics listener, on a free port. */
  metrics?: boolean;
  databaseTimeouts?: DatabaseTimeouts;
  /** The EUR rates its operations are priced at (default: the configured table). */
  eurRates?: EurRates;
  /** A new address-book entry's cooling-off for partners without their own (default: the setting's). */
  withdrawalAddressCoolingOffMinutes?: number;
  /** Where it reaches Temporal (default: the run's server), e.g. through a proxy a test can cut. */
  temporalAddress?: string;
}

/** The real HTTP API on a free port, against the run's Postgres. */
export async function startTestApi(options: StartTestApiOptions = {}): Promise<TestApi> {
  const api: RunningApi = await startApi({
    port: 0,
    host: '127.0.0.1',
    databaseUrl: options.databaseUrl ?? testStack().databaseUrl,
    databaseReadUrl: undefined,
    temporalAddress: options.temporalAddress ?? testStack().temporalAddress,
    temporalNamespace: testStack().namespace,
    temporalTaskQueue: options.taskQueue ?? testStack().taskQueue,
    operationResponseTimeoutMs: options.responseTimeoutMs ?? 30_000,
    eurRates: options.eurRates ?? DEFAULT_EUR_RATES,
    maxBodyBytes: options.maxBodyBytes ?? 64 * 1024,
    rateLimitPerSecond: options.rateLimit?.perSecond ?? 0,
    rateLimitBurst: options.rateLimit?.burst ?? 0,
    rateLimitWritesPerSecond: options.rateLimit?.writes?.perSecond ?? 0,
    rateLimitWritesBurst: options.rateLimit?.writes?.burst ?? 0,
    authFailureLimitPerSecond: options.authFailureLimit?.perSecond ?? 0,
    authFailureBurst: options.authFailureLimit?.burst ?? 1,
    authFailureProcessLimitPerSecond: options.authFailureLimit?.processPerSecond ?? 0,
    trustProxy: options.trustProxy ?? false,
    ...(options.metrics ? { apiMetrics: { port: 0, host: '127.0.0.1' } } : {}),
    log: createLogger('test-api', 'error'),
    clock: options.clock,
    temporal: testTemporalAccess(),
    ...(options.databaseTimeouts ? { databaseTimeouts: options.databaseTimeouts } : {}),
    withdrawalAddressCoolingOffMinutes: options.withdrawalAddressCoolingOffMinutes ?? DEFAULT_COOLING_OFF_MINUTES,
  });
  return {
    url: api.url,
    metricsUrl: api.metricsUrl,
    async request(method, path, requestOptions = {}) {
      const headers: Record<string, string> = { ...requestOptions.headers };
      if (requestOptions.apiKey) headers.authorization = `Bearer ${requestOptions.apiKey}`;
      let body: string | undefined;
      if (requestOptions.body !== undefined) {
        body = typeof requestOptions.body === 'string' ? requestOptions.body : JSON.stringify(requestOptions.body);
        headers['content-type'] ??= 'application/json';
      }
      const response = await fetch(api.url + path, { method, headers, body });
      const text = await response.text();
      let json: unknown;
      try {
        json = text ? JSON.parse(text) : undefined;
      } catch {
        json = undefined;
      }
      return { status: response.status, text, json, headers: response.headers };
    },
    stop: () => api.stop(),
  };
}

export function fixedClock(iso: string): Clock & { set(iso: string): void } {
  let now = new Date(iso);
  return { now: () => new Date(now), set: (next) => (now = new Date(next)) };
}
