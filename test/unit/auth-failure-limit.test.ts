import http from 'node:http';
import type { AddressInfo } from 'node:net';
import Koa from 'koa';
import type { ApiKeyResolver } from '../../api/auth/api-key-cache';
import { authMiddleware } from '../../api/middleware/auth.middleware';
import { errorMiddleware } from '../../api/middleware/error.middleware';
import type { ApiState } from '../../api/state';
import { hashApiKey } from '../../core/api-keys';
import type { ActiveApiKey } from '../../core/api-keys';

/**
 * The failure limit of the auth middleware on its own: a Koa app with only it and the error
 * middleware, a resolver this test controls and a clock that stands still unless moved. The
 * whole API under a real flood: test/e2e/unknown-key-flood.test.ts.
 */
interface Harness {
  url: string;
  /** Hashes the resolver was asked for (the database lookups the limit saves). */
  lookups: string[];
  /** Active keys: hash → partner (and expiry, if any); `known` also in the cache's memory. */
  active: Map<string, { partnerId: string; known: boolean; expiresAt?: Date }>;
  failNextLookup(): void;
  clock: { nowMs: number };
  get(
    apiKey: string | undefined,
    forwardedFor?: string,
  ): Promise<{ status: number; body: Record<string, unknown>; retryAfter: string | null }>;
}

const servers: http.Server[] = [];
afterAll(async () => {
  await Promise.all(servers.map((server) => new Promise((resolve) => server.close(resolve))));
});

async function harness(options: { perSecond: number; burst: number; processPerSecond?: number; trustProxy?: boolean }): Promise<Harness> {
  const lookups: string[] = [];
  const active: Harness['active'] = new Map();
  const clock = { nowMs: 0 };
  let failNext = false;
  const keyOf = (keyHash: string): ActiveApiKey | undefined => {
    const entry = active.get(keyHash);
    return (
      entry && { apiKeyId: `key-of-${entry.partnerId}`, partnerId: entry.partnerId, scope: 'payments', expiresAt: entry.expiresAt ?? null }
    );
  };
  const resolver: ApiKeyResolver = {
    async keyFor(keyHash) {
      lookups.push(keyHash);
      if (failNext) {
        failNext = false;
        throw new Error('database unavailable');
      }
      return keyOf(keyHash);
    },
    knownKeyFor: (keyHash) => (active.get(keyHash)?.known ? keyOf(keyHash) : undefined),
  };
  const app = new Koa<ApiState>();
  app.proxy = options.trustProxy ?? false;
  app.maxIpsCount = 1;
  app.use(errorMiddleware());
  const limit = { perSecond: options.perSecond, burst: options.burst, processPerSecond: options.processPerSecond ?? 0 };
  app.use(authMiddleware(resolver, limit, { now: () => new Date(clock.nowMs) }));
  app.use((ctx) => {
    ctx.body = { partnerId: ctx.state.partnerId };
  });
  const server = http.createServer(app.callback());
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    url,
    lookups,
    active,
    clock,
    failNextLookup: () => (failNext = true),
    async get(apiKey, forwardedFor) {
      const headers: Record<string, string> = {};
      if (apiKey) headers.authorization = `Bearer ${apiKey}`;
      if (forwardedFor) headers['x-forwarded-for'] = forwardedFor;
      const response = await fetch(url, { headers });
      return {
        status: response.status,
        body: (await response.json()) as Record<string, unknown>,
        retryAfter: response.headers.get('retry-after'),
      };
    },
  };
}

describe('the limit on failed authentications per client address', () => {
  it('answers 429 P429 with Retry-After, without a lookup, once an address has used up its failures', async () => {
    const api = await harness({ perSecond: 5, burst: 3 });
    for (let index = 0; index < 3; index += 1) expect((await api.get(`pk_made-up-${index}`)).status).toBe(401);
    expect(api.lookups).toHaveLength(3);
    const refused = await api.get('pk_made-up-3');
    expect(refused).toEqual({
      status: 429,
      body: {
        errorCode: 'P429',
        errorName: 'too-many-requests',
        errorMessage: 'too many failed authentications from this address: at most 5 per second (bursts of 3)',
      },
      retryAfter: '1',
    });
    expect(api.lookups).toHaveLength(3);
    // A fifth of a second gives one failure back.
    api.clock.nowMs += 200;
    expect((await api.get('pk_made-up-4')).status).toBe(401);
    expect((await api.get('pk_made-up-5')).status).toBe(429);
    expect(api.lookups).toHaveLength(4);
  });

  it('still serves a key known to be active from that address, from memory', async () => {
    const api = await harness({ perSecond: 5, burst: 1 });
    api.active.set(hashApiKey('pk_partner'), { partnerId: 'partner-1', known: true });
    expect((await api.get('pk_made-up')).status).toBe(401);
    expect((await api.get('pk_made-up-again')).status).toBe(429);
    const served = await api.get('pk_partner');
    expect(served).toMatchObject({ status: 200, body: { partnerId: 'partner-1' } });
    expect(api.lookups).toEqual([hashApiKey('pk_made-up')]);
  });

  it('refuses a key not in memory from an exhausted address before looking it up, even an active one', async () => {
    const api = await harness({ perSecond: 5, burst: 1 });
    api.active.set(hashApiKey('pk_cold'), { partnerId: 'partner-2', known: false });
    expect((await api.get('pk_made-up')).status).toBe(401);
    expect((await api.get('pk_cold')).status).toBe(429);
    api.clock.nowMs += 200;
    expect((await api.get('pk_cold')).status).toBe(200);
  });

  it('counts only failures: active keys and database errors give their token back; no key at all takes none', async () => {
    const api = await harness({ perSecond: 5, burst: 2 });
    api.active.set(hashApiKey('pk_cold'), { partnerId: 'partner-3', known: false });
    for (let index = 0; index < 5; index += 1) expect((await api.get('pk_cold')).status).toBe(200);
    api.failNextLookup();
    expect((await api.get('pk_cold')).status).toBe(500);
    for (let index = 0; index < 5; index += 1) expect((await api.get(undefined)).status).toBe(401);
    expect((await api.get('pk_made-up-1')).status).toBe(401);
    expect((await api.get('pk_made-up-2')).status).toBe(401);
    expect((await api.get('pk_made-up-3')).status).toBe(429);
  });

  it('refuses an expired key like an unknown one, from memory at the instant it expires, and counts it as a failure', async () => {
    const api = await harness({ perSecond: 5, burst: 1 });
    api.active.set(hashApiKey('pk_expiring'), { partnerId: 'partner-4', known: true, expiresAt: new Date(api.clock.nowMs + 1_000) });
    expect((await api.get('pk_expiring')).status).toBe(200);
    api.clock.nowMs += 999;
    expect((await api.get('pk_expiring')).status).toBe(200);
    api.clock.nowMs += 1;
    expect(await api.get('pk_expiring')).toMatchObject({
      status: 401,
      body: { errorCode: 'P401', errorName: 'unauthorized', errorMessage: 'unknown, revoked or expired API key' },
    });
    expect(api.lookups).toEqual([]);
    // Looked up (not in memory), an expired key drains the address's failures like a made-up one.
    api.active.set(hashApiKey('pk_expired-cold'), { partnerId: 'partner-5', known: false, expiresAt: new Date(api.clock.nowMs - 1) });
    expect((await api.get('pk_expired-cold')).status).toBe(401);
    expect((await api.get('pk_expired-cold')).status).toBe(429);
  });

  it('keeps addresses apart: one flooding address does not lock out another', async () => {
    const api = await harness({ perSecond: 5, burst: 1, trustProxy: true });
    expect((await api.get('pk_made-up-1', '198.51.100.1')).status).toBe(401);
    expect((await api.get('pk_made-up-2', '198.51.100.1')).status).toBe(429);
    expect((await api.get('pk_made-up-3', '198.51.100.2')).status).toBe(401);
    // Behind the proxy the address is the last entry, the one the proxy added: what a client puts before it is ignored.
    expect((await api.get('pk_made-up-4', '203.0.113.9, 198.51.100.1')).status).toBe(429);
    // An IPv6 client is counted by its /64.
    expect((await api.get('pk_made-up-5', '2001:db8:1:2::1')).status).toBe(401);
    expect((await api.get('pk_made-up-6', '2001:db8:1:2::ffff')).status).toBe(429);
  });

  it('counts a /64 in its /56 and /48 too: 200 /64s of one /48 get the /48 budget (16 times one /64), not 200 times it', async () => {
    const api = await harness({ perSecond: 5, burst: 2, trustProxy: true });
    // Each /64 in a /56 of its own, so only the /48 binds.
    const addresses = Array.from({ length: 200 }, (_, index) => `2001:db8:aa:${(index * 256 + 1).toString(16)}::1`);
    const statuses: number[] = [];
    for (const address of addresses)
      for (let attempt = 0; attempt < 3; attempt += 1) statuses.push((await api.get(`pk_x-${address}-${attempt}`, address)).status);
    expect(api.lookups).toHaveLength(2 * 16);
    expect(statuses.filter((status) => status === 401)).toHaveLength(32);
    const refused = await api.get('pk_one-more', '2001:db8:aa:ffff::1');
    expect(refused.body.errorMessage).toBe('too many failed authentications from 2001:db8:aa::/48: at most 80 per second (bursts of 32)');
    // Another /48 is its own.
    expect((await api.get('pk_elsewhere', '2001:db8:bb:1::1')).status).toBe(401);
    // An IPv4 /24 has 4 times one address's budget.
    for (let host = 1; host <= 10; host += 1) await api.get(`pk_v4-${host}`, `198.51.100.${host}`);
    expect((await api.get('pk_v4-more', '198.51.100.77')).body.errorMessage).toBe(
      'too many failed authentications from 198.51.100.0/24: at most 20 per second (bursts of 8)',
    );
  });

  it('puts a ceiling on lookups from all addresses together; a known key is still served, and the ceiling refills', async () => {
    const api = await harness({ perSecond: 5, burst: 100, processPerSecond: 10, trustProxy: true });
    api.active.set(hashApiKey('pk_partner'), { partnerId: 'partner-6', known: true });
    const statuses: number[] = [];
    for (let index = 0; index < 50; index += 1) statuses.push((await api.get(`pk_made-up-${index}`, `10.${index}.0.1`)).status);
    expect(statuses.filter((status) => status === 401)).toHaveLength(10);
    expect(api.lookups).toHaveLength(10);
    const refused = await api.get('pk_made-up-late', '10.200.0.1');
    expect(refused).toMatchObject({
      status: 429,
      body: {
        errorMessage:
          'too many unknown API keys from all clients together: this API process looks up at most 10 per second; a key it already knows is served',
      },
      retryAfter: '1',
    });
    expect((await api.get('pk_partner', '10.201.0.1')).status).toBe(200);
    api.clock.nowMs += 100;
    expect((await api.get('pk_made-up-after', '10.202.0.1')).status).toBe(401);
    // A refusal by the ceiling took no token from the address: 10.1.0.1 still has all but one of its failures.
    expect(api.lookups).toHaveLength(11);
  });

  it('without TRUST_PROXY counts the socket address and ignores X-Forwarded-For', async () => {
    const api = await harness({ perSecond: 5, burst: 1 });
    expect((await api.get('pk_made-up-1', '198.51.100.1')).status).toBe(401);
    expect((await api.get('pk_made-up-2', '198.51.100.2')).status).toBe(429);
  });

  it('with a rate of 0 there is no limit', async () => {
    const api = await harness({ perSecond: 0, burst: 1 });
    for (let index = 0; index < 20; index += 1) expect((await api.get(`pk_made-up-${index}`)).status).toBe(401);
    expect(api.lookups).toHaveLength(20);
  });
});
