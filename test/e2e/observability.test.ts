import { randomUUID } from 'node:crypto';
import { ApplicationFailure, ApplicationFailureCategory } from '@temporalio/common';
import { Writable } from 'node:stream';
import { startApi } from '../../api/server';
import type { ApiOptions } from '../../api/server';
import type { WorkerActivities } from '../../activities';
import { createLogger } from '../../core/logger';
import type { LogLevel, Logger } from '../../core/logger';
import { DEFAULT_EUR_RATES } from '../../core/rates';
import { ethWithdrawalBody } from '../support/operations';
import { freePort } from '../../dev/free-port';
import { SdkLogAdapter } from '../../worker/temporal-runtime';
import { startWorker } from '../../worker/worker';
import { eventually } from '../support/eventually';
import { createTestPartner } from '../support/fixtures';
import type { TestPartner } from '../support/fixtures';
import { fixedClock } from '../support/http';
import { metricValue } from '../support/prometheus-text';
import { quietSdkLogs } from '../support/sdk-logs';
import { testStack } from '../support/stack';
import { testTemporalAccess } from '../support/temporal-access';
import { TEST_WORKER_SETTINGS } from '../support/test-config';
import { useTestApi } from '../support/use-test-api';

const ctx = useTestApi({ api: false });

/** A JSON log line; assertions are its type check. */
type LogEntry = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

/** A logger writing JSON lines into memory, so a test reads what production would write. */
function capturedLogger(level: LogLevel): { log: Logger; entries(): LogEntry[] } {
  const lines: string[] = [];
  const destination = new Writable({
    write(chunk: Buffer, _encoding, done) {
      lines.push(...chunk.toString('utf8').split('\n').filter(Boolean));
      done();
    },
  });
  return {
    log: createLogger('observability-test', level, { format: 'json', destination }),
    entries: () => lines.map((line) => JSON.parse(line)),
  };
}

interface ObservedApi {
  url: string;
  /** The internal listener of GET /metrics (API_METRICS_PORT), apart from the public port. */
  metricsUrl: string;
  get(path: string, options?: { apiKey?: string; headers?: Record<string, string> }): Promise<Response>;
  post(path: string, body: object, options?: { apiKey?: string; headers?: Record<string, string> }): Promise<Response>;
  /** The JSON lines its logger wrote so far. */
  entries(): LogEntry[];
}

/** The real API (startApi, as `npm run api` starts it) with its log captured; stopped after the file. */
async function startObservedApi(overrides: Partial<ApiOptions> = {}): Promise<ObservedApi> {
  const captured = capturedLogger('info');
  const api = await startApi({
    port: 0,
    databaseUrl: testStack().databaseUrl,
    databaseReadUrl: undefined,
    temporalAddress: testStack().temporalAddress,
    temporalNamespace: testStack().namespace,
    temporalTaskQueue: testStack().taskQueue,
    operationResponseTimeoutMs: 30_000,
    eurRates: DEFAULT_EUR_RATES,
    maxBodyBytes: 64 * 1024,
    rateLimitPerSecond: 0,
    rateLimitBurst: 0,
    authFailureLimitPerSecond: 0,
    authFailureBurst: 1,
    trustProxy: false,
    host: '127.0.0.1',
    apiMetrics: { port: 0, host: '127.0.0.1' },
    log: captured.log,
    temporal: testTemporalAccess(),
    withdrawalAddressCoolingOffMinutes: 0,
    ...overrides,
  });
  ctx.defer(() => api.stop());
  const headersOf = (options: { apiKey?: string; headers?: Record<string, string> }) => ({
    ...options.headers,
    ...(options.apiKey ? { authorization: `Bearer ${options.apiKey}` } : {}),
  });
  return {
    url: api.url,
    metricsUrl: api.metricsUrl!,
    get: (path, options = {}) => fetch(api.url + path, { headers: headersOf(options) }),
    post: (path, body, options = {}) =>
      fetch(api.url + path, {
        method: 'POST',
        headers: { ...headersOf(options), 'content-type': 'application/json' },
        body: JSON.stringify(body),
      }),
    entries: () => captured.entries(),
  };
}

async function metricsOf(url: string): Promise<string> {
  const response = await fetch(`${url}/metrics`);
  expect(response.status).toBe(200);
  expect(response.headers.get('content-type')).toContain('text/plain');
  return response.text();
}

function accessLine(api: ObservedApi, requestId: string): LogEntry {
  const lines = api.entries().filter((entry) => entry.requestId === requestId && typeof entry.status === 'number');
  expect(lines).toHaveLength(1);
  return lines[0]!;
}

describe('X-Request-Id and the access log', () => {
  let api: ObservedApi;
  let partner: TestPartner;
  beforeAll(async () => {
    api = await startObservedApi();
    partner = await createTestPartner(ctx.orm);
  });

  it('echoes a well-formed X-Request-Id and puts it on the one JSON access-log line of the request', async () => {
    const requestId = `obs-${randomUUID()}:1.a_b`;
    const response = await api.get('/v1/partner/balances', { apiKey: partner.apiKey, headers: { 'X-Request-Id': requestId } });
    expect(response.status).toBe(200);
    expect(response.headers.get('x-request-id')).toBe(requestId);
    expect(accessLine(api, requestId)).toMatchObject({
      level: 'info',
      name: 'observability-test',
      msg: 'GET /v1/partner/balances 200',
      method: 'GET',
      route: '/v1/partner/balances',
      status: 200,
      partnerId: partner.partnerId,
      durationMs: expect.any(Number),
    });
  });

  it.each([
    ['one with a space', 'bad id'],
    ['one with a slash', 'a/b'],
    ['one of 129 characters', 'x'.repeat(129)],
    ['an empty one', ''],
  ])('replaces %s with a fresh UUID', async (_what, offered) => {
    const response = await api.get('/health/live', { headers: { 'X-Request-Id': offered } });
    expect(response.status).toBe(200);
    expect(response.headers.get('x-request-id')).toMatch(UUID);
  });

  it('puts one on every response: 401, 404, health, each a different one', async () => {
    const responses = await Promise.all([
      api.get('/v1/partner/balances'),
      api.get('/v1/no-such-route', { apiKey: partner.apiKey }),
      api.get('/health'),
      api.get('/health/ready'),
    ]);
    expect(responses.map((response) => response.status)).toEqual([401, 404, 200, 200]);
    const ids = responses.map((response) => response.headers.get('x-request-id'));
    for (const id of ids) expect(id).toMatch(UUID);
    expect(new Set(ids).size).toBe(4);
  });

  it('logs a refusal once, at info, with its error code, and never the request body', async () => {
    const requestId = `obs-refused-${randomUUID()}`;
    const body = {
      currency: 'eur',
      amount: '10.00',
      receiverType: 'NATURAL',
      receiverFirstName: 'Zofia',
      receiverLastName: 'Wisniewska-Secretname',
      destinationIban: 'DE00000000000000000000',
      transferTitle: 'rent',
    };
    const response = await api.post('/v1/partner/sepa-transfer', body, { apiKey: partner.apiKey, headers: { 'X-Request-Id': requestId } });
    expect(response.status).toBe(400);
    expect(response.headers.get('x-request-id')).toBe(requestId);
    const errorCode = ((await response.json()) as { errorCode: string }).errorCode;
    expect(accessLine(api, requestId)).toMatchObject({ level: 'info', status: 400, errorCode, route: '/v1/partner/sepa-transfer' });
    const everything = JSON.stringify(api.entries());
    expect(everything).not.toContain('Wisniewska-Secretname');
    expect(everything).not.toContain('DE00000000000000000000');
  });

  it('logs the route template of a path with an id, and 404 P404 for an unknown path', async () => {
    const withdrawalId = randomUUID();
    const requestId = `obs-details-${randomUUID()}`;
    const response = await api.get(`/v1/crypto-withdrawal/details/${withdrawalId}`, {
      apiKey: partner.apiKey,
      headers: { 'X-Request-Id': requestId },
    });
    expect(response.status).toBe(404);
    expect(accessLine(api, requestId)).toMatchObject({
      route: '/v1/crypto-withdrawal/details/:withdrawalId',
      path: `/v1/crypto-withdrawal/details/${withdrawalId}`,
      errorCode: 'P421',
    });
    const unknownId = `obs-unknown-${randomUUID()}`;
    await api.get('/v1/nowhere', { headers: { 'X-Request-Id': unknownId } });
    expect(accessLine(api, unknownId)).toMatchObject({ level: 'info', route: 'unmatched', status: 404, errorCode: 'P404' });
  });
});

describe('GET /metrics', () => {
  it('is served on the internal listener only: the public port answers 404 P404, like any unknown path', async () => {
    const api = await startObservedApi();
    expect(new URL(api.metricsUrl).port).not.toBe(new URL(api.url).port);
    expect(new URL(api.metricsUrl).hostname).toBe('127.0.0.1');
    const publicAnswer = await api.get('/metrics');
    expect(publicAnswer.status).toBe(404);
    expect(await publicAnswer.json()).toMatchObject({ errorCode: 'P404' });
    expect((await fetch(`${api.metricsUrl}/v1/partner/balances`)).status).toBe(404);
    expect((await fetch(`${api.metricsUrl}/metrics`, { method: 'POST' })).status).toBe(405);
    // Scrapes are not requests of the API: they do not count themselves.
    await metricsOf(api.metricsUrl);
    const page = await metricsOf(api.metricsUrl);
    expect(page).not.toContain('route="/metrics"');
  });

  it('counts requests by route template, method, status and error code, and times them', async () => {
    const api = await startObservedApi();
    const partner = await createTestPartner(ctx.orm);
    const before = await metricsOf(api.metricsUrl);
    expect(
      metricValue(before, 'payments_http_requests_total', { route: '/v1/partner/balances', method: 'GET', status: '200', code: '' }),
    ).toBe(undefined);
    for (let index = 0; index < 3; index += 1) expect((await api.get('/v1/partner/balances', { apiKey: partner.apiKey })).status).toBe(200);
    expect((await api.get('/v1/partner/balances', { apiKey: 'pk_wrong' })).status).toBe(401);
    const detailsId = randomUUID();
    expect((await api.get(`/v1/crypto-withdrawal/details/${detailsId}`, { apiKey: partner.apiKey })).status).toBe(404);

    const page = await metricsOf(api.metricsUrl);
    expect(
      metricValue(page, 'payments_http_requests_total', { route: '/v1/partner/balances', method: 'GET', status: '200', code: '' }),
    ).toBe(3);
    expect(
      metricValue(page, 'payments_http_requests_total', { route: '/v1/partner/balances', method: 'GET', status: '401', code: 'P401' }),
    ).toBe(1);
    expect(
      metricValue(page, 'payments_http_requests_total', {
        route: '/v1/crypto-withdrawal/details/:withdrawalId',
        method: 'GET',
        status: '404',
        code: 'P421',
      }),
    ).toBe(1);
    expect(metricValue(page, 'payments_http_request_duration_seconds_count', { route: '/v1/partner/balances', method: 'GET' })).toBe(4);
    // Raw URLs never become labels: one series per route however many ids are asked for.
    expect(page).not.toContain(detailsId);
    expect(metricValue(page, 'process_cpu_user_seconds_total')).toBeGreaterThan(0);
  });

  it('reads operations by status, funds held by currency and the reconciliation report from Postgres', async () => {
    const api = await startObservedApi();
    const page = await metricsOf(api.metricsUrl);
    expect(metricValue(page, 'payments_metrics_database_read_failed')).toBe(0);
    for (const currency of ['eur', 'btc', 'eth', 'usdc']) {
      expect(metricValue(page, 'payments_funds_held', { currency })).toBeGreaterThanOrEqual(0);
    }
    expect(metricValue(page, 'payments_reconciliation_last_report_timestamp_seconds')).toBeGreaterThanOrEqual(0);
  });
});

describe('health', () => {
  it('answers /health, /health/live and /health/ready without a key, even when rate limits apply; ready lists the simulated rails', async () => {
    const api = await startObservedApi({ rateLimitPerSecond: 1, rateLimitBurst: 1, simulatedRails: ['sepa', 'bitcoin'] });
    for (const path of ['/health', '/health/live', '/health/live']) {
      const response = await api.get(path);
      expect(response.status).toBe(200);
      expect(await response.json()).toEqual({ status: 'ok' });
      expect(response.headers.get('ratelimit')).toBeNull();
    }
    const ready = await api.get('/health/ready');
    expect(ready.status).toBe(200);
    expect(await ready.json()).toEqual({
      status: 'ready',
      checks: { postgres: 'ok', temporal: 'ok' },
      simulatedRails: ['sepa', 'bitcoin'],
    });
  });

  it('is live but not ready when Postgres cannot be reached: 503 names it, and the access line is an error', async () => {
    const closedPort = await freePort();
    const api = await startObservedApi({ databaseUrl: `postgres://nobody@127.0.0.1:${closedPort}/none` });
    expect((await api.get('/health/live')).status).toBe(200);
    const requestId = `obs-ready-${randomUUID()}`;
    const ready = await api.get('/health/ready', { headers: { 'X-Request-Id': requestId } });
    expect(ready.status).toBe(503);
    expect(ready.headers.get('x-request-id')).toBe(requestId);
    expect(await ready.json()).toEqual({ status: 'unavailable', checks: { postgres: 'failed', temporal: 'ok' }, simulatedRails: [] });
    expect(accessLine(api, requestId)).toMatchObject({
      level: 'error',
      status: 503,
      error: { message: expect.stringContaining('ECONNREFUSED') },
    });
    // Its metrics still answer; the database gauges say they could not be read.
    const page = await metricsOf(api.metricsUrl);
    expect(metricValue(page, 'payments_metrics_database_read_failed')).toBe(1);
    expect(metricValue(page, 'payments_funds_held', { currency: 'eur' })).toBeUndefined();
  });
});

describe('rate-limit headers', () => {
  it('tells the partner the policy and what is left on every authenticated answer, 429 included', async () => {
    // A fixed clock: no tokens come back between the requests, so every figure is exact.
    const api = await startObservedApi({ rateLimitPerSecond: 1, rateLimitBurst: 2, clock: fixedClock('2026-11-22T12:00:00Z') });
    const partner = await createTestPartner(ctx.orm);
    const first = await api.get('/v1/partner/balances', { apiKey: partner.apiKey });
    expect(first.status).toBe(200);
    expect(first.headers.get('ratelimit-policy')).toBe('"default";q=2;w=2');
    expect(first.headers.get('ratelimit')).toBe('"default";r=1;t=1');
    const second = await api.get('/v1/crypto-withdrawal/details/' + randomUUID(), { apiKey: partner.apiKey });
    expect(second.status).toBe(404);
    expect(second.headers.get('ratelimit')).toBe('"default";r=0;t=2');
    const refused = await api.get('/v1/partner/balances', { apiKey: partner.apiKey });
    expect(refused.status).toBe(429);
    expect(await refused.json()).toMatchObject({ errorCode: 'P429' });
    expect(refused.headers.get('ratelimit-policy')).toBe('"default";q=2;w=2');
    expect(refused.headers.get('ratelimit')).toBe('"default";r=0;t=2');
    expect(refused.headers.get('retry-after')).toBe('1');
    // No key, no partner, no bucket: nothing to tell.
    const anonymous = await api.get('/v1/partner/balances');
    expect(anonymous.status).toBe(401);
    expect(anonymous.headers.get('ratelimit')).toBeNull();
  });
});

describe('a withdrawal, followed from the request to its activities', () => {
  it('carries the request id into the workflow memo and onto activity log lines; a replay says Idempotent-Replayed', async () => {
    quietSdkLogs();
    const workerLog = capturedLogger('debug');
    const taskQueue = `observability-${randomUUID()}`;
    // Every activity logs one probe line through the worker's logger, as activity code does.
    const probed = (activities: WorkerActivities): WorkerActivities =>
      Object.fromEntries(
        Object.entries(activities).map(([name, activity]) => [
          name,
          async (...args: unknown[]) => {
            workerLog.log.info(`probe ${name}`);
            return (activity as (...a: unknown[]) => Promise<unknown>)(...args);
          },
        ]),
      ) as WorkerActivities;
    // No prebuilt bundle: the worker bundles the workflows with its interceptor modules, as in production.
    const worker = await startWorker({
      databaseUrl: testStack().databaseUrl,
      temporalAddress: testStack().temporalAddress,
      namespace: testStack().namespace,
      taskQueue,
      log: workerLog.log,
      settings: {
        travelRuleDeadlineMs: Number(TEST_WORKER_SETTINGS.TRAVEL_RULE_DEADLINE_MS),
        travelRuleThresholdEur: TEST_WORKER_SETTINGS.TRAVEL_RULE_THRESHOLD_EUR,
        denyListedAddresses: [],
        temporal: testTemporalAccess(),
        development: {
          chainConfirmationDelayMs: Number(TEST_WORKER_SETTINGS.CHAIN_CONFIRMATION_DELAY_MS),
          bankSettlementDelayMs: Number(TEST_WORKER_SETTINGS.BANK_SETTLEMENT_DELAY_MS),
          bankRejectIbans: [],
        },
      },
      wrapActivities: probed,
      http: { port: 0, host: '127.0.0.1' },
    });
    ctx.defer(() => worker.stop());
    const api = await startObservedApi({ temporalTaskQueue: taskQueue });
    const partner = await createTestPartner(ctx.orm, { deposits: { eth: '1' } });

    const requestId = `obs-withdrawal-${randomUUID()}`;
    const body = ethWithdrawalBody();
    const headers = { 'X-Request-Id': requestId, 'Idempotency-Key': `obs-${randomUUID()}` };
    const first = await api.post('/v1/partner/crypto-withdrawal', body, { apiKey: partner.apiKey, headers });
    expect(first.status).toBe(200);
    expect(first.headers.get('idempotent-replayed')).toBeNull();
    const { withdrawalId } = (await first.json()) as { withdrawalId: string };
    const replay = await api.post('/v1/partner/crypto-withdrawal', body, {
      apiKey: partner.apiKey,
      headers: { ...headers, 'X-Request-Id': `${requestId}-again` },
    });
    expect(replay.status).toBe(200);
    expect(replay.headers.get('idempotent-replayed')).toBe('true');
    expect(await replay.json()).toEqual({ withdrawalId });
    expect(accessLine(api, `${requestId}-again`)).toMatchObject({ replayed: true, status: 200 });

    const workflowId = `crypto-withdrawal-${withdrawalId}`;
    const description = await ctx.temporal.workflow.getHandle(workflowId).describe();
    // The replay joined nothing and changed nothing: the memo names the request that started it.
    expect(description.memo).toEqual({ requestId });

    await eventually(async () => {
      const details = await api.get(`/v1/crypto-withdrawal/details/${withdrawalId}`, { apiKey: partner.apiKey });
      expect(((await details.json()) as { status: string }).status).toBe('SUCCESSFUL');
    });
    const probes = workerLog.entries().filter((entry) => typeof entry.msg === 'string' && entry.msg.startsWith('probe '));
    const probedActivities = probes.map((entry) => entry.msg.slice('probe '.length));
    expect(probedActivities).toEqual(expect.arrayContaining(['reserveWithdrawal', 'broadcastWithdrawal', 'settleWithdrawal']));
    for (const probe of probes) expect(probe).toMatchObject({ requestId, workflowId, activityType: probe.msg.slice('probe '.length) });

    // The API counted one operation started, answered twice (once replayed).
    const apiMetrics = await metricsOf(api.metricsUrl);
    expect(metricValue(apiMetrics, 'payments_operations_started_total', { operation: 'crypto-withdrawal' })).toBe(1);
    expect(
      metricValue(apiMetrics, 'payments_operations_answered_total', { operation: 'crypto-withdrawal', code: 'OK', replayed: 'false' }),
    ).toBe(1);
    expect(
      metricValue(apiMetrics, 'payments_operations_answered_total', { operation: 'crypto-withdrawal', code: 'OK', replayed: 'true' }),
    ).toBe(1);

    // A refusal is an expected outcome: the worker counts it as refused, not failed. (An exchange on a made-up lock is
    // refused before any workflow; one the balance cannot cover, on a real lock, is the workflow's to refuse.)
    const lock = await api.get('/v1/partner/get-lock', { apiKey: partner.apiKey });
    const refusedExchange = await api.post(
      '/v1/partner/exchange',
      { lockId: ((await lock.json()) as { id: string }).id, currencyFrom: 'eth', currencyTo: 'eur', amount: '1000000' },
      { apiKey: partner.apiKey },
    );
    expect(refusedExchange.status).toBe(400);
    expect(await refusedExchange.json()).toMatchObject({ errorCode: 'P433' });

    // Postgres' view, read at scrape time (cached a few seconds).
    await eventually(async () => {
      const page = await metricsOf(api.metricsUrl);
      expect(metricValue(page, 'payments_operations', { operation: 'crypto-withdrawal', status: 'SUCCESSFUL' })).toBeGreaterThanOrEqual(1);
    });

    // The worker's own HTTP side: ready while polling, and its activity counts.
    expect(worker.httpUrl).toBeDefined();
    expect((await fetch(`${worker.httpUrl}/health/live`)).status).toBe(200);
    const ready = await fetch(`${worker.httpUrl}/health/ready`);
    expect(ready.status).toBe(200);
    // No EVM node configured: every rail is simulated, and said so.
    const allRails = ['sepa', 'bitcoin', 'dogecoin', 'ethereum', 'litecoin', 'polygon'];
    expect(await ready.json()).toEqual({
      status: 'ready',
      checks: { polling: 'ok', postgres: 'ok', chainIdentity: 'ok' },
      simulatedRails: allRails,
    });
    const workerMetrics = await metricsOf(worker.httpUrl!);
    for (const rail of allRails) expect(metricValue(workerMetrics, 'payments_rail_simulated', { rail })).toBe(1);
    expect(
      metricValue(workerMetrics, 'payments_worker_activity_attempts_total', { activity_type: 'settleWithdrawal', outcome: 'completed' }),
    ).toBe(1);
    expect(
      metricValue(workerMetrics, 'payments_worker_activity_attempts_total', { activity_type: 'executeExchange', outcome: 'refused' }),
    ).toBe(1);
    expect(
      metricValue(workerMetrics, 'payments_worker_activity_attempts_total', { activity_type: 'executeExchange', outcome: 'failed' }),
    ).toBe(undefined);
  }, 180_000);
});

describe("the Temporal SDK's log lines", () => {
  it('go through our logger: an expected failure at debug without its stack, a warning with it, TRACE dropped', () => {
    const captured = capturedLogger('debug');
    const sdk = new SdkLogAdapter(captured.log);
    const notYet = ApplicationFailure.create({
      type: 'not-confirmed-yet',
      message: 'not confirmed yet',
      category: ApplicationFailureCategory.BENIGN,
    });
    sdk.debug('Activity failed', { error: notYet, activityType: 'awaitWithdrawalConfirmation', [Symbol('timestamp')]: 1n });
    sdk.warn('Activity failed', { error: new Error('connection reset') });
    sdk.trace('Activity heartbeat flushed');
    const [debug, warn, ...rest] = captured.entries();
    expect(rest).toEqual([]);
    expect(debug).toMatchObject({
      level: 'debug',
      msg: 'Activity failed',
      activityType: 'awaitWithdrawalConfirmation',
      error: { class: 'ApplicationFailure', type: 'not-confirmed-yet', message: 'not confirmed yet' },
    });
    expect(debug!.error.stack).toBeUndefined();
    expect(warn).toMatchObject({
      level: 'warn',
      error: { class: 'Error', message: 'connection reset', stack: expect.stringContaining('connection reset') },
    });
  });
});
