import net from 'node:net';
import type { AddressInfo } from 'node:net';
import { createTestPartner } from '../support/fixtures';
import { startTestApi } from '../support/http';
import type { TestApi } from '../support/http';
import { testStack } from '../support/stack';
import { useTestApi } from '../support/use-test-api';

const ctx = useTestApi();

/**
 * A TCP proxy in front of the run's Postgres that can stall (stop forwarding, keep every socket
 * open, like a hung host or a full disk) or drop every connection (like a restart or a failover).
 */
async function startFaultyProxy(target: { host: string; port: number }) {
  let stalled = false;
  const pairs = new Set<{ client: net.Socket; server?: net.Socket }>();
  const proxy = net.createServer((client) => {
    const pair: { client: net.Socket; server?: net.Socket } = { client };
    pairs.add(pair);
    client.on('close', () => {
      pairs.delete(pair);
      pair.server?.destroy();
    });
    client.on('error', () => undefined);
    if (stalled) return; // accepted, never answered
    const server = net.connect(target.port, target.host);
    pair.server = server;
    server.on('error', () => client.destroy());
    server.on('close', () => client.destroy());
    client.pipe(server);
    server.pipe(client);
  });
  await new Promise<void>((resolve) => proxy.listen(0, '127.0.0.1', resolve));
  return {
    port: (proxy.address() as AddressInfo).port,
    stall() {
      stalled = true;
      for (const { client, server } of pairs) {
        client.unpipe();
        server?.unpipe();
        client.pause();
        server?.pause();
      }
    },
    heal() {
      stalled = false;
      for (const pair of pairs) pair.client.destroy();
    },
    drop() {
      for (const pair of pairs) pair.client.destroy();
    },
    stop: () =>
      new Promise<void>((resolve) => {
        for (const pair of pairs) pair.client.destroy();
        proxy.close(() => resolve());
      }),
  };
}

describe('Postgres stalled or gone: quick 503 P503, never a hang or a 500', () => {
  let proxy: Awaited<ReturnType<typeof startFaultyProxy>>;
  let api: TestApi;

  beforeAll(async () => {
    const url = new URL(testStack().databaseUrl);
    proxy = await startFaultyProxy({ host: url.hostname, port: Number(url.port) });
    const proxied = new URL(testStack().databaseUrl);
    proxied.host = `127.0.0.1:${proxy.port}`;
    api = await startTestApi({
      databaseUrl: proxied.toString(),
      databaseTimeouts: {
        connectTimeoutMs: 500,
        statementTimeoutMs: 1_000,
        lockTimeoutMs: 1_000,
        idleInTransactionTimeoutMs: 5_000,
        keepAliveInitialDelayMs: 1_000,
      },
    });
  });
  afterAll(async () => {
    await api?.stop();
    await proxy?.stop();
  });

  async function balances(apiKey: string): Promise<{ status: number; body: { errorCode?: string }; ms: number }> {
    const started = Date.now();
    const response = await fetch(`${api.url}/v1/partner/balances`, { headers: { authorization: `Bearer ${apiKey}` } });
    return { status: response.status, body: (await response.json()) as { errorCode?: string }, ms: Date.now() - started };
  }

  it('answers 503 within the timeouts while the database is stalled, and 200 once it is back', async () => {
    const partner = await createTestPartner(ctx.orm, { deposits: { eur: '10' } });
    expect((await balances(partner.apiKey)).status).toBe(200);

    proxy.stall();
    const stalled = await balances(partner.apiKey);
    expect(stalled.status).toBe(503);
    expect(stalled.body.errorCode).toBe('P503');
    // Statement timeout (1 s) plus the connect timeout (0.5 s), with room for a busy machine; never the 30 s of a hang.
    expect(stalled.ms).toBeLessThan(10_000);

    // A new partner: its key is not cached, so authentication itself needs the stalled database.
    const fresh = await createTestPartner(ctx.orm);
    const unauthenticated = await balances(fresh.apiKey);
    expect(unauthenticated.status).toBe(503);

    proxy.heal();
    let healed = await balances(partner.apiKey);
    for (let attempt = 0; attempt < 20 && healed.status !== 200; attempt += 1) {
      await new Promise((resolve) => setTimeout(resolve, 250));
      healed = await balances(partner.apiKey);
    }
    expect(healed.status).toBe(200);
  });

  it('answers 503, not 500, when every connection is dropped under it', async () => {
    const partner = await createTestPartner(ctx.orm, { deposits: { eur: '10' } });
    expect((await balances(partner.apiKey)).status).toBe(200);
    const inFlight = Array.from({ length: 8 }, () => balances(partner.apiKey));
    proxy.drop();
    const answers = await Promise.all(inFlight);
    for (const answer of answers) {
      expect([200, 503]).toContain(answer.status);
      if (answer.status === 503) expect(answer.body.errorCode).toBe('P503');
    }
    let after = await balances(partner.apiKey);
    for (let attempt = 0; attempt < 20 && after.status !== 200; attempt += 1) {
      expect(after.status).toBe(503);
      await new Promise((resolve) => setTimeout(resolve, 250));
      after = await balances(partner.apiKey);
    }
    expect(after.status).toBe(200);
  });
});
