import { randomUUID } from 'node:crypto';
import { eventually } from '../support/eventually';
import { createTestPartner } from '../support/fixtures';
import type { TestPartner } from '../support/fixtures';
import { balancesOf } from '../support/operations';
import { fixedClock, startTestApi } from '../support/http';
import { runOpsCli } from '../support/ops-cli';
import { useTestApi } from '../support/use-test-api';

/**
 * What a leaked key can do, through HTTP with keys the operator CLI issues: a read key only reads,
 * an expired key is refused like a revoked one, a rotated key works until its overlap ends, and
 * each key's last use shows in `ops key list`.
 */
const ctx = useTestApi();
const ops = (...args: string[]) => runOpsCli(args);

const REFUSED_KEY = { errorCode: 'P401', errorName: 'unauthorized', errorMessage: 'unknown, revoked or expired API key' };
const balances = (apiKey: string, api = ctx.api) => api.request('GET', '/v1/partner/balances', { apiKey });

async function sql<Row = Record<string, unknown>>(text: string, values: unknown[] = []): Promise<Row[]> {
  return ctx.orm.em.fork().getConnection().execute(text, values);
}

/** What the partner's requests left behind: operations, idempotency claims, accepted requests. */
async function tracesOf(partnerId: string): Promise<Record<string, number>> {
  const [row] = await sql<Record<string, number>>(
    `select (select count(*)::int from exchange where partner_id = ?) as exchanges,
            (select count(*)::int from crypto_withdrawal where partner_id = ?) as withdrawals,
            (select count(*)::int from sepa_transfer where partner_id = ?) as transfers,
            (select count(*)::int from idempotency_record where partner_id = ?) as claims,
            (select count(*)::int from accepted_operation where partner_id = ?) as accepted`,
    [partnerId, partnerId, partnerId, partnerId, partnerId],
  );
  return row!;
}

async function keyOf(partner: TestPartner, ...flags: string[]): Promise<{ apiKey: string; apiKeyId: string; expiresAt: string | null }> {
  const created = await ops('key', 'create', '--partner', partner.partnerId, ...flags);
  expect(created.code).toBe(0);
  return created.output;
}

async function listedKey(partnerId: string, apiKeyId: string): Promise<Record<string, unknown>> {
  const listed = await ops('key', 'list', '--partner', partnerId);
  expect(listed.code).toBe(0);
  return listed.output.apiKeys.find((key: { apiKeyId: string }) => key.apiKeyId === apiKeyId);
}

describe('a read key', () => {
  it('reads (GET and HEAD 200) but any POST, and get-lock, is 403 P440 and does nothing: no operation, no claim, no lock', async () => {
    const partner = await createTestPartner(ctx.orm, { deposits: { eur: '1000' } });
    const read = await keyOf(partner, '--scope', 'read');
    expect(read).toMatchObject({ scope: 'read', expiresAt: null });

    expect((await balances(read.apiKey)).json.fiatBalances[0]).toMatchObject({ name: 'eur', amount: '1000.00' });
    expect((await ctx.api.request('HEAD', '/v1/partner/balances', { apiKey: read.apiKey })).status).toBe(200);
    // A rate lock is stored, so it is not a read.
    const lockRefused = await ctx.api.request('GET', '/v1/partner/get-lock', { apiKey: read.apiKey });
    expect({ status: lockRefused.status, body: lockRefused.json }).toEqual({
      status: 403,
      body: {
        errorCode: 'P440',
        errorName: 'key-not-permitted',
        errorMessage:
          'this API key has the read scope, which only reads; GET /v1/partner/get-lock changes something and needs a key with the payments scope',
      },
    });
    expect(await sql('select id from rate_lock where partner_id = ?', [partner.partnerId])).toEqual([]);
    const lock = await ctx.api.request('GET', '/v1/partner/get-lock', { apiKey: partner.apiKey });
    expect(lock.status).toBe(200);

    const idempotencyKey = randomUUID();
    const body = { amount: 100, currencyFrom: 'eur', currencyTo: 'btc', lockId: lock.json.id };
    const refused = await ctx.api.request('POST', '/v1/partner/exchange', {
      apiKey: read.apiKey,
      body,
      headers: { 'Idempotency-Key': idempotencyKey },
    });
    expect(refused.status).toBe(403);
    expect(refused.json).toEqual({
      errorCode: 'P440',
      errorName: 'key-not-permitted',
      errorMessage:
        'this API key has the read scope, which only reads; POST /v1/partner/exchange changes something and needs a key with the payments scope',
    });
    for (const path of ['/v1/partner/crypto-withdrawal', '/v1/partner/sepa-transfer', '/v1/crypto-withdrawal']) {
      const answer = await ctx.api.request('POST', path, { apiKey: read.apiKey, body: { amount: '1' } });
      expect({ path, status: answer.status, errorCode: answer.json.errorCode }).toEqual({ path, status: 403, errorCode: 'P440' });
    }
    expect(await tracesOf(partner.partnerId)).toEqual({ exchanges: 0, withdrawals: 0, transfers: 0, claims: 0, accepted: 0 });
    expect(await balancesOf(ctx.api, partner)).toMatchObject({ eur: '1000.00' });

    // The same lock and Idempotency-Key with the partner's payments key: nothing was used up.
    const done = await ctx.api.request('POST', '/v1/partner/exchange', {
      apiKey: partner.apiKey,
      body,
      headers: { 'Idempotency-Key': idempotencyKey },
    });
    expect(done.status).toBe(201);
    expect(done.headers.get('idempotent-replayed')).toBeNull();
    expect(await tracesOf(partner.partnerId)).toMatchObject({ exchanges: 1, claims: 1 });
  }, 120_000);
});

describe('rate limits', () => {
  it("are per key: a read key's flood of GETs leaves the payments key's quota whole; a refused scope spends no token", async () => {
    const partner = await createTestPartner(ctx.orm, { deposits: { eur: '100' } });
    const read = await keyOf(partner, '--scope', 'read');
    const limited = await startTestApi({ rateLimit: { perSecond: 0.01, burst: 3 } });
    try {
      const flood = [];
      for (let index = 0; index < 5; index += 1) flood.push((await balances(read.apiKey, limited)).status);
      expect(flood).toEqual([200, 200, 200, 429, 429]);
      // The read key's POSTs are refused for their scope before the limit: 403, not 429, and the payments key is untouched.
      const post = await limited.request('POST', '/v1/partner/sepa-transfer', { apiKey: read.apiKey, body: {} });
      expect({ status: post.status, code: post.json.errorCode }).toEqual({ status: 403, code: 'P440' });
      const served = await balances(partner.apiKey, limited);
      expect(served.status).toBe(200);
      expect(served.headers.get('ratelimit')).toBe('"default";r=2;t=100');
    } finally {
      await limited.stop();
    }
  }, 60_000);

  it("writes draw on the partner's own smaller quota, across its keys; reads go on when it is spent", async () => {
    const partner = await createTestPartner(ctx.orm);
    const second = await keyOf(partner);
    const limited = await startTestApi({ rateLimit: { perSecond: 100, burst: 100, writes: { perSecond: 0.01, burst: 2 } } });
    try {
      const lock = (apiKey: string) => limited.request('GET', '/v1/partner/get-lock', { apiKey });
      const first = await lock(partner.apiKey);
      expect(first.status).toBe(200);
      expect(first.headers.get('ratelimit-policy')).toBe('"default";q=100;w=1, "writes";q=2;w=200');
      expect((await lock(second.apiKey)).status).toBe(200);
      const refused = await lock(second.apiKey);
      expect(refused.status).toBe(429);
      expect(refused.json.errorMessage).toBe('at most 0.01 requests per second that change something, per partner (bursts of 2)');
      expect(Number(refused.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
      expect((await balances(partner.apiKey, limited)).status).toBe(200);
      expect((await balances(second.apiKey, limited)).headers.get('ratelimit-policy')).toBe('"default";q=100;w=1');
    } finally {
      await limited.stop();
    }
  }, 60_000);
});

describe('an expiring key', () => {
  it('works until its expires_at and is 401 like a revoked key from then on, the change reaching the cached key at once', async () => {
    const partner = await createTestPartner(ctx.orm);
    const before = Date.now();
    const key = await keyOf(partner, '--expires-in-days', '30');
    const expiresInMs = Date.parse(key.expiresAt!) - before;
    expect(expiresInMs).toBeGreaterThan(30 * 86_400_000 - 60_000);
    expect(expiresInMs).toBeLessThanOrEqual(30 * 86_400_000 + 60_000);
    // Twice: the second answer comes from the API's memory of the key.
    expect((await balances(key.apiKey)).status).toBe(200);
    expect((await balances(key.apiKey)).status).toBe(200);

    await sql(`update api_key set expires_at = now() - interval '1 second' where id = ?`, [key.apiKeyId]);
    await eventually(async () => expect((await balances(key.apiKey)).json).toEqual(REFUSED_KEY), { timeoutMs: 5_000 });
    expect((await balances(partner.apiKey)).status).toBe(200);
  }, 60_000);
});

describe('rotation', () => {
  it('the new key works at once, the old one too until oldKeyExpiresAt, then 401; the new one keeps the scope', async () => {
    const partner = await createTestPartner(ctx.orm);
    const old = await keyOf(partner, '--scope', 'read');
    expect((await balances(old.apiKey)).status).toBe(200);

    const before = Date.now();
    const rotated = await ops('key', 'rotate', '--key', old.apiKeyId, '--overlap-minutes', '60');
    expect(rotated).toEqual({
      code: 0,
      output: {
        apiKey: expect.stringMatching(/^pk_/),
        apiKeyId: expect.stringMatching(/^[0-9a-f-]{36}$/),
        scope: 'read',
        expiresAt: null,
        oldKeyExpiresAt: expect.any(String),
      },
    });
    const overlapEnds = Date.parse(rotated.output.oldKeyExpiresAt);
    expect(overlapEnds - before).toBeGreaterThan(3_600_000 - 60_000);
    expect(overlapEnds - before).toBeLessThanOrEqual(3_600_000 + 60_000);
    const fresh = rotated.output.apiKey as string;
    for (const apiKey of [old.apiKey, fresh, old.apiKey, fresh]) expect((await balances(apiKey)).status).toBe(200);
    expect((await ctx.api.request('POST', '/v1/partner/exchange', { apiKey: fresh, body: {} })).status).toBe(403);

    // An API whose clock passes the end of the overlap refuses the old key from memory, with no change announced.
    const clock = fixedClock(new Date(overlapEnds - 1_000).toISOString());
    const later = await startTestApi({ clock });
    ctx.defer(() => later.stop());
    expect((await balances(old.apiKey, later)).status).toBe(200);
    expect((await balances(fresh, later)).status).toBe(200);
    clock.set(new Date(overlapEnds).toISOString());
    expect((await balances(old.apiKey, later)).json).toEqual(REFUSED_KEY);
    expect((await balances(fresh, later)).status).toBe(200);

    // Made to pass in the database: every API's cached copy of the old key learns it at once.
    expect((await balances(old.apiKey)).status).toBe(200);
    await sql(`update api_key set expires_at = now() where id = ?`, [old.apiKeyId]);
    await eventually(async () => expect((await balances(old.apiKey)).json).toEqual(REFUSED_KEY), { timeoutMs: 5_000 });
    expect((await balances(fresh)).status).toBe(200);
  }, 120_000);

  it('with --overlap-minutes 0 the old key is refused at once; the new key of an expiring key gets its lifetime again', async () => {
    const partner = await createTestPartner(ctx.orm);
    const old = await keyOf(partner, '--expires-in-days', '10');
    expect((await balances(old.apiKey)).status).toBe(200);
    const before = Date.now();
    const rotated = await ops('key', 'rotate', '--key', old.apiKeyId, '--overlap-minutes', '0');
    expect(rotated.code).toBe(0);
    expect(rotated.output.scope).toBe('payments');
    expect(Date.parse(rotated.output.oldKeyExpiresAt)).toBeLessThanOrEqual(Date.now());
    const lifetimeMs = Date.parse(rotated.output.expiresAt) - before;
    expect(lifetimeMs).toBeGreaterThan(10 * 86_400_000 - 120_000);
    expect(lifetimeMs).toBeLessThanOrEqual(10 * 86_400_000 + 60_000);
    expect((await balances(old.apiKey)).json).toEqual(REFUSED_KEY);
    expect((await balances(rotated.output.apiKey)).status).toBe(200);
  }, 60_000);
});

describe('lastUsedAt', () => {
  it('shows in key list after a request, written once a minute at most; a key never used shows null', async () => {
    const partner = await createTestPartner(ctx.orm);
    const unused = await keyOf(partner);
    expect(await listedKey(partner.partnerId, partner.apiKeyId)).toMatchObject({ lastUsedAt: null });
    const before = Date.now();
    expect((await balances(partner.apiKey)).status).toBe(200);
    const lastUsedAt = await eventually(
      async () => {
        const [row] = await sql<{ last_used_at: string | Date | null }>(`select last_used_at from api_key where id = ?`, [
          partner.apiKeyId,
        ]);
        expect(row?.last_used_at).not.toBeNull();
        return new Date(row!.last_used_at!);
      },
      { timeoutMs: 5_000 },
    );
    expect(lastUsedAt.getTime()).toBeGreaterThanOrEqual(before - 1_000);
    // A minute has not passed: more requests write nothing.
    for (let index = 0; index < 3; index += 1) expect((await balances(partner.apiKey)).status).toBe(200);
    const listed = await listedKey(partner.partnerId, partner.apiKeyId);
    expect(listed).toMatchObject({ lastUsedAt: lastUsedAt.toISOString(), scope: 'payments', revokedAt: null });
    expect(await listedKey(partner.partnerId, unused.apiKeyId)).toMatchObject({ lastUsedAt: null });
  }, 60_000);
});
