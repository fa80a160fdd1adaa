import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { Client } from '@temporalio/client';
import { connectClosable } from '../../operations/temporal/closable-connection';
import { createApp } from '../../api/app';
import { systemClock } from '../../api/dependencies';
import type { ApiDependencies } from '../../api/dependencies';
import { createLogger } from '../../core/logger';
import { DEFAULT_EUR_RATES } from '../../core/rates';
import { loadSettings } from '../../core/settings';
import { revokeApiKey } from '../../db/services/api-key.service';
import { startWorker } from '../../worker/worker';
import type { RunningWorker } from '../../worker/worker';
import { eventually } from '../support/eventually';
import { TEST_WORKER_SETTINGS } from '../support/test-config';
import { createTestPartner } from '../support/fixtures';
import type { TestPartner } from '../support/fixtures';
import { startTestApi } from '../support/http';
import { testStack } from '../support/stack';
import { testDataConverter } from '../support/temporal-access';
import { useTestApi } from '../support/use-test-api';
import { endPool, openPool } from '../../db/pool';

const ctx = useTestApi({ maxBodyBytes: 1024 });
let partner: TestPartner;
beforeAll(async () => {
  partner = await createTestPartner(ctx.orm);
});

describe('authentication', () => {
  it('a request without Authorization is 401 P401', async () => {
    const response = await ctx.api.request('GET', '/v1/partner/balances');
    expect(response.status).toBe(401);
    expect(response.json).toMatchObject({ errorCode: 'P401', errorName: 'unauthorized' });
  });

  it('a scheme other than Bearer is 401 P401', async () => {
    const response = await ctx.api.request('GET', '/v1/partner/balances', { headers: { authorization: `Basic ${partner.apiKey}` } });
    expect(response.status).toBe(401);
    expect(response.json.errorCode).toBe('P401');
  });

  it('an unknown key is 401 P401', async () => {
    const response = await ctx.api.request('GET', '/v1/partner/balances', { apiKey: 'pk_not-a-real-key' });
    expect(response.status).toBe(401);
    expect(response.json).toMatchObject({ errorCode: 'P401', errorMessage: 'unknown, revoked or expired API key' });
  });

  it('a revoked key is 401 P401 on every endpoint', async () => {
    const revoked = await createTestPartner(ctx.orm);
    await ctx.orm.em.fork().transactional((em) => revokeApiKey(em, revoked.apiKeyId, new Date()));
    for (const path of [
      '/v1/partner/balances',
      '/v1/partner/get-lock',
      '/v1/partner/transaction-history/1/2026',
      '/v1/crypto-withdrawal/get-network-fee?currency=btc',
    ]) {
      const response = await ctx.api.request('GET', path, { apiKey: revoked.apiKey });
      expect(response.status).toBe(401);
      expect(response.json.errorCode).toBe('P401');
    }
    for (const path of ['/v1/partner/exchange', '/v1/partner/crypto-withdrawal', '/v1/partner/sepa-transfer', '/v1/crypto-withdrawal']) {
      const response = await ctx.api.request('POST', path, { apiKey: revoked.apiKey, body: {} });
      expect(response.status).toBe(401);
      expect(response.json.errorCode).toBe('P401');
    }
    const details = await ctx.api.request('GET', `/v1/crypto-withdrawal/details/${revoked.partnerId}`, { apiKey: revoked.apiKey });
    expect(details.status).toBe(401);
  });

  it('the key is accepted with any letter case of "Bearer"', async () => {
    const response = await ctx.api.request('GET', '/v1/partner/balances', { headers: { authorization: `bearer ${partner.apiKey}` } });
    expect(response.status).toBe(200);
  });
});

describe('errors', () => {
  it('an unknown route is 404 P404', async () => {
    const response = await ctx.api.request('GET', '/v1/partner/nothing-here', { apiKey: partner.apiKey });
    expect(response.status).toBe(404);
    expect(response.json).toMatchObject({ errorCode: 'P404', errorName: 'not-found' });
  });

  it('a known route with another method is 404 P404', async () => {
    const response = await ctx.api.request('DELETE', '/v1/partner/balances', { apiKey: partner.apiKey });
    expect(response.status).toBe(404);
    expect(response.json.errorCode).toBe('P404');
  });

  it('malformed JSON is 400 P400 naming the problem', async () => {
    const response = await ctx.api.request('POST', '/v1/partner/exchange', { apiKey: partner.apiKey, body: '{"amount": 1,' });
    expect(response.status).toBe(400);
    expect(response.json).toMatchObject({ errorCode: 'P400', errorName: 'invalid-request' });
    expect(response.json.errorMessage).toMatch(/^malformed JSON: /);
  });

  it('a body that is not JSON is 400 P400', async () => {
    const response = await ctx.api.request('POST', '/v1/partner/exchange', {
      apiKey: partner.apiKey,
      body: 'amount=1',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
    });
    expect(response.status).toBe(400);
    expect(response.json.errorMessage).toBe('Content-Type must be application/json');
  });

  it('a body over the size limit is 413 P413', async () => {
    const response = await ctx.api.request('POST', '/v1/partner/exchange', { apiKey: partner.apiKey, body: { memo: 'x'.repeat(2000) } });
    expect(response.status).toBe(413);
    expect(response.json).toMatchObject({ errorCode: 'P413', errorName: 'payload-too-large' });
  });

  it('a partner over its request rate gets 429 P429 with Retry-After; other partners are unaffected', async () => {
    const limited = await startTestApi({ rateLimit: { perSecond: 0.01, burst: 3 } });
    try {
      const statuses = [];
      for (let index = 0; index < 5; index += 1) {
        statuses.push((await limited.request('GET', '/v1/partner/balances', { apiKey: partner.apiKey })).status);
      }
      expect(statuses.slice(0, 3)).toEqual([200, 200, 200]);
      const refused = await limited.request('GET', '/v1/partner/balances', { apiKey: partner.apiKey });
      expect(refused.status).toBe(429);
      expect(refused.json).toMatchObject({ errorCode: 'P429', errorName: 'too-many-requests' });
      expect(Number(refused.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
      const other = await createTestPartner(ctx.orm);
      expect((await limited.request('GET', '/v1/partner/balances', { apiKey: other.apiKey })).status).toBe(200);
    } finally {
      await limited.stop();
    }
  });

  it('an operation no worker confirms in time is 503 P503 saying nothing was moved; the same key later moves the money once', async () => {
    const taskQueue = `late-worker-${Date.now()}`;
    const unserved = await startTestApi({ taskQueue, responseTimeoutMs: 1500 });
    let worker: RunningWorker | undefined;
    try {
      const funded = await createTestPartner(ctx.orm, { deposits: { eur: '100' } });
      const body = {
        currency: 'eur',
        amount: '10',
        receiverType: 'LEGAL',
        companyName: 'Acme GmbH',
        destinationIban: 'DE89370400440532013000',
        transferTitle: 'Rent',
      };
      const response = await unserved.request('POST', '/v1/partner/sepa-transfer', {
        apiKey: funded.apiKey,
        body,
        headers: { 'idempotency-key': 'unserved-1' },
      });
      expect(response.status).toBe(503);
      expect(response.json).toMatchObject({ errorCode: 'P503', errorName: 'service-unavailable' });
      expect(response.json.errorMessage).toContain('nothing was moved');
      // No worker polls that queue yet: nothing was reserved.
      const balances = await unserved.request('GET', '/v1/partner/balances', { apiKey: funded.apiKey });
      expect(balances.json.fiatBalances[0].amount).toBe('100.00');

      worker = await startWorker({
        databaseUrl: testStack().databaseUrl,
        temporalAddress: testStack().temporalAddress,
        namespace: testStack().namespace,
        taskQueue,
        workflowBundlePath: testStack().workflowBundlePath,
        log: createLogger('late-worker', 'error'),
        settings: loadSettings(
          { ...TEST_WORKER_SETTINGS, DATA_DIR: testStack().dataDir, PAYLOAD_ENCRYPTION_KEYS: process.env.PAYLOAD_ENCRYPTION_KEYS },
          '/',
        ),
      });
      // A partner retries with the same key until it gets the outcome (a busy machine may need a few tries).
      await eventually(
        async () => {
          const retried = await unserved.request('POST', '/v1/partner/sepa-transfer', {
            apiKey: funded.apiKey,
            body,
            headers: { 'idempotency-key': 'unserved-1' },
          });
          expect(retried.status).toBe(201);
        },
        { timeoutMs: 30_000, intervalMs: 200 },
      );
      const after = await unserved.request('GET', '/v1/partner/balances', { apiKey: funded.apiKey });
      expect(after.json.fiatBalances[0].amount).toBe('90.00');
    } finally {
      await worker?.stop();
      await unserved.stop();
    }
  });

  it('an unexpected failure is 500 P500 and shows no internals', async () => {
    const failing = await serve({
      rateSource: { currentEurRates: () => Promise.reject(new Error('secret internal detail at /srv/rates.ts:42')) },
    });
    try {
      const response = await fetch(`${failing.url}/v1/partner/get-lock`, { headers: { authorization: `Bearer ${partner.apiKey}` } });
      expect(response.status).toBe(500);
      const text = await response.text();
      expect(JSON.parse(text)).toEqual({ errorCode: 'P500', errorName: 'internal-error' });
      expect(text).not.toContain('secret');
    } finally {
      await failing.stop();
    }
  });

  it('an unreachable database is 503 P503', async () => {
    const unreachable = openPool({ connectionString: 'postgres://nobody@127.0.0.1:1/none', connectionTimeoutMillis: 1000 });
    const broken = await serve({ readPool: unreachable });
    try {
      const response = await fetch(`${broken.url}/v1/partner/balances`, { headers: { authorization: `Bearer ${partner.apiKey}` } });
      expect(response.status).toBe(503);
      expect(await response.json()).toMatchObject({ errorCode: 'P503', errorName: 'service-unavailable' });
    } finally {
      await broken.stop();
      await endPool(unreachable);
    }
  });
});

/** The app with some dependencies replaced, to provoke failures no real request can. */
async function serve(overrides: Partial<ApiDependencies>): Promise<{ url: string; stop(): Promise<void> }> {
  const readPool = openPool({ connectionString: testStack().databaseUrl, max: 2 });
  const temporalConnection = await connectClosable({ address: testStack().temporalAddress });
  const app = createApp({
    pool: readPool,
    readPool,
    temporal: {
      client: new Client({
        connection: temporalConnection.connection,
        namespace: testStack().namespace,
        dataConverter: testDataConverter(),
      }),
      taskQueue: testStack().taskQueue,
      responseTimeoutMs: 30_000,
      pool: readPool,
    },
    rateSource: { currentEurRates: async () => DEFAULT_EUR_RATES },
    clock: systemClock,
    log: createLogger('test', 'error'),
    maxBodyBytes: 1024,
    rateLimit: { perSecond: 0, burst: 0 },
    withdrawalAddressCoolingOffMinutes: 0,
    ...overrides,
  });
  const server = http.createServer(app.callback());
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    async stop() {
      await new Promise((resolve) => server.close(resolve));
      await temporalConnection.close();
      await endPool(readPool);
    },
  };
}
