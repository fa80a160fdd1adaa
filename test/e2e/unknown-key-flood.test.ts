import { randomUUID } from 'node:crypto';
import type { Clock } from '../../core/clock';
import { apiKeyDisplayPrefix, generateApiKey, hashApiKey } from '../../core/api-keys';
import { eventually } from '../support/eventually';
import { createTestPartner } from '../support/fixtures';
import { fixedClock, startTestApi } from '../support/http';
import type { TestApi } from '../support/http';
import { metricValue } from '../support/prometheus-text';
import { useTestApi } from '../support/use-test-api';

const ctx = useTestApi({ api: false });

/** Production's defaults (AUTH_FAILURE_LIMIT_PER_SECOND, AUTH_FAILURE_BURST), without the process-wide ceiling (its own test). */
const LIMIT = { perSecond: 5, burst: 100, processPerSecond: 0 };

/**
 * An attacker with a handful of addresses, behind the proxy a deployment puts in front of the API
 * (TRUST_PROXY): the test speaks as that proxy, naming each request's client in X-Forwarded-For.
 * The real partner shares the first address, as a company behind one NAT would.
 */
// Each in a /24 of its own: addresses of one /24 share that /24's budget too (a test of its own, test/unit/auth-failure-limit.test.ts).
const ATTACKERS = ['198.51.100.1', '203.0.113.2', '192.0.2.3', '198.18.0.4', '198.19.0.5'];
const FLOOD_REQUESTS = 3_000;
const FLOOD_CONNECTIONS = 50;

/** Database lookups of API keys so far, by result (payments_api_key_lookups_total on the internal listener). */
async function keyLookups(api: TestApi): Promise<{ active: number; unknown: number }> {
  const page = await (await fetch(`${api.metricsUrl}/metrics`)).text();
  return {
    active: metricValue(page, 'payments_api_key_lookups_total', { result: 'active' }) ?? 0,
    unknown: metricValue(page, 'payments_api_key_lookups_total', { result: 'unknown' }) ?? 0,
  };
}

/** The API as production configures it; with a clock, one that stands still: no failure comes back, however slow the machine. */
async function floodingApi(clock?: Clock): Promise<TestApi> {
  const api = await startTestApi({ trustProxy: true, metrics: true, authFailureLimit: LIMIT, ...(clock ? { clock } : {}) });
  ctx.defer(() => api.stop());
  return api;
}

/**
 * Measured on a 2-core development machine (the whole flood in 2.5 s): 560 lookups (five bursts
 * of 100 and what 2.5 s gave back), 2,440 requests refused unseen, 31 partner answers, all 200,
 * the median 52 ms and the slowest 71 ms (client and API share this process's event loop).
 */
describe('a flood of unknown API keys', () => {
  it('3,000 random keys from five addresses: a lookup only for the failures each address is allowed, and a partner behind one of them is answered 200 throughout', async () => {
    // The limiters' clock stands still: what the flood may cost is then exactly five bursts,
    // however long a loaded machine takes to send it (the refill has a test of its own).
    const api = await floodingApi(fixedClock(new Date().toISOString()));
    const partner = await createTestPartner(ctx.orm);
    const asPartner = { apiKey: partner.apiKey, headers: { 'x-forwarded-for': ATTACKERS[0]! } };
    // Its first request puts the key in the API's memory, as any working partner's is.
    expect((await api.request('GET', '/v1/partner/balances', asPartner)).status).toBe(200);
    const before = await keyLookups(api);

    const startedMs = performance.now();
    const floodStatuses = new Map<number, number>();
    let sent = 0;
    const failures: string[] = [];
    const flooder = async () => {
      while (sent < FLOOD_REQUESTS) {
        const attacker = ATTACKERS[sent % ATTACKERS.length]!;
        sent += 1;
        try {
          const response = await fetch(`${api.url}/v1/partner/balances`, {
            headers: { authorization: `Bearer ${generateApiKey()}`, 'x-forwarded-for': attacker },
          });
          await response.arrayBuffer();
          floodStatuses.set(response.status, (floodStatuses.get(response.status) ?? 0) + 1);
        } catch (error) {
          // Every flooder stops, so none goes on into the next test; the failure is asserted below.
          failures.push(String((error as Error).cause ?? error));
          sent = FLOOD_REQUESTS;
        }
      }
    };
    let flooding = true;
    const partnerAnswers: Array<{ status: number; ms: number }> = [];
    const partnerCalls = (async () => {
      // Fewer than its rate limit's burst: with the clock standing still, that bucket does not refill either.
      while (flooding && partnerAnswers.length < 150) {
        const requestedMs = performance.now();
        const { status } = await api.request('GET', '/v1/partner/balances', asPartner);
        partnerAnswers.push({ status, ms: performance.now() - requestedMs });
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
    })();
    await Promise.all(Array.from({ length: FLOOD_CONNECTIONS }, flooder));
    flooding = false;
    await partnerCalls;
    const after = await keyLookups(api);
    expect(failures).toEqual([]);

    // Every made-up key is refused: 401 while its address had failures left, then 429 unseen.
    expect([...floodStatuses.keys()].sort()).toEqual([401, 429]);
    const refusedUnseen = floodStatuses.get(429)!;
    const lookedUp = after.unknown - before.unknown;
    expect(lookedUp).toBe(floodStatuses.get(401));
    expect(lookedUp + refusedUnseen).toBe(FLOOD_REQUESTS);
    // Each address's burst, and not one lookup more.
    expect(lookedUp).toBe(ATTACKERS.length * LIMIT.burst);
    process.stdout.write(`flood of ${FLOOD_REQUESTS} unknown keys in ${((performance.now() - startedMs) / 1000).toFixed(1)} s\n`);

    // The partner, behind an address the flood exhausted, was served from memory all along.
    expect(partnerAnswers.length).toBeGreaterThanOrEqual(5);
    expect(partnerAnswers.filter((answer) => answer.status !== 200)).toEqual([]);
    // Client and API share this process's event loop with 50 flooding connections: on a quiet
    // machine the slowest answer took 71 ms, on a loaded one (a second test run beside it) the 95th
    // percentile took 2 s. What is bounded here is a partner held behind the flood (a lookup queued
    // behind the attackers' would wait for the database, or answer 503 above); the speed is the
    // machine's, so the figures are printed.
    const latencies = partnerAnswers.map((answer) => answer.ms).sort((a, b) => a - b);
    const p95 = latencies[Math.min(latencies.length - 1, Math.floor(latencies.length * 0.95))]!;
    process.stdout.write(
      `partner answers during the flood: ${latencies.length}, p95 ${p95.toFixed(0)} ms, max ${latencies.at(-1)!.toFixed(0)} ms\n`,
    );
    expect(p95).toBeLessThan(10_000);
    expect(after.active - before.active).toBe(0);
  }, 120_000);

  it('the same made-up key sent 100 times at once costs one lookup; the address is then refused unseen', async () => {
    const api = await floodingApi(fixedClock('2026-11-24T12:00:00Z'));
    const before = await keyLookups(api);
    const apiKey = generateApiKey();
    const headers = { 'x-forwarded-for': '198.51.100.77' };
    const answers = await Promise.all(Array.from({ length: 100 }, () => api.request('GET', '/v1/partner/balances', { apiKey, headers })));
    expect(answers.map((answer) => answer.status)).toEqual(Array<number>(100).fill(401));
    expect((await keyLookups(api)).unknown - before.unknown).toBe(1);

    const refused = await api.request('GET', '/v1/partner/balances', { apiKey: generateApiKey(), headers });
    expect(refused.status).toBe(429);
    expect(refused.json).toEqual({
      errorCode: 'P429',
      errorName: 'too-many-requests',
      errorMessage: 'too many failed authentications from this address: at most 5 per second (bursts of 100)',
    });
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    expect((await keyLookups(api)).unknown - before.unknown).toBe(1);
  });

  it('a key created after it was refused works at once, although unknown keys are remembered for a few seconds', async () => {
    // A clock that stands still: the unknown key stays remembered until the creation says otherwise.
    const api = await floodingApi(fixedClock('2026-11-24T12:00:00Z'));
    const partner = await createTestPartner(ctx.orm);
    const apiKey = generateApiKey();
    const headers = { 'x-forwarded-for': '198.51.100.88' };
    expect((await api.request('GET', '/v1/partner/balances', { apiKey, headers })).status).toBe(401);
    const before = await keyLookups(api);
    expect((await api.request('GET', '/v1/partner/balances', { apiKey, headers })).status).toBe(401);
    expect((await keyLookups(api)).unknown).toBe(before.unknown); // answered from memory
    // Inserted as the operator CLI inserts keys, with a key chosen here; the trigger announces it.
    await ctx.orm.em
      .fork()
      .getConnection()
      .execute(`insert into api_key (id, partner_id, key_hash, key_prefix, created_at) values (?, ?, ?, ?, now())`, [
        randomUUID(),
        partner.partnerId,
        hashApiKey(apiKey),
        apiKeyDisplayPrefix(apiKey),
      ]);
    // The clock stands still, so without the announcement the key would stay refused however long this waits.
    await eventually(async () => expect((await api.request('GET', '/v1/partner/balances', { apiKey, headers })).status).toBe(200), {
      timeoutMs: 30_000,
      intervalMs: 20,
    });
  });
});
