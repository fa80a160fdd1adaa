import { monitorEventLoopDelay, performance } from 'node:perf_hooks';
import fc from 'fast-check';
import type pg from 'pg';
import { findBalanceMismatches, findOverdrawnAccounts, findUnbalancedTransfers } from '../../db/queries/reconciliation.queries';
import { eventually } from '../support/eventually';
import { createTestPartner } from '../support/fixtures';
import type { TestPartner } from '../support/fixtures';
import {
  exchangeBodies,
  hasUnsafeText,
  isValidJsonValue,
  nestingDepth,
  REAL_LOCK,
  sepaTransferBodies,
  toJsonText,
  withdrawalBodies,
} from '../support/hostile-bodies';
import type { HostileBody } from '../support/hostile-bodies';
import type { TestResponse } from '../support/http';
import { registerUser } from '../support/operations';
import { testStack } from '../support/stack';
import { useTestApi } from '../support/use-test-api';
import { endPool, openPool } from '../../db/pool';

/**
 * Property: whatever body a money-moving POST receives, the answer is never a 5xx, nothing it
 * accepts gets stuck, the ledger stays clean, and no request holds the event loop (before the
 * input bounds, one amount held it 0.5–36 s). Reproduce a failure with HOSTILE_SEED=<seed>.
 */
const SEED = Number(process.env.HOSTILE_SEED ?? 20261122);
/** 5,000 per route in `npm test` (about 4 of its worker-minutes); more by hand before a release (docs/testing.md, "Tiers"). */
const BODIES_PER_ROUTE = Number(process.env.HOSTILE_BODIES ?? 5_000);
const IN_FLIGHT = 16;
const MAX_BODY_BYTES = 64 * 1024;
/**
 * Hostile bodies are thousands of the generated ones: before the input bounds each cost 0.5 s or
 * more (up to 36 s), so the event loop's delay stood above a second for far more than 1% of the
 * run. The bounds sit above what a loaded 2-core machine shows on a clean run, with other test
 * processes beside it (client and API share this event loop): p99 well under a second, and a few
 * stalls of the whole process (p99.9 up to 2.2 s, max 2.4 s, in two full runs of 2026-11-25/26)
 * that no body causes. So what tells a body that holds the loop from a stall of the machine is
 * sending the slowest refused bodies again, one at a time: a body that holds the loop holds it
 * again alone; a stall does not come back with it. The figures are printed either way.
 */
const MAX_LOOP_DELAY_P99_MS = 1_000;
const MAX_LOOP_DELAY_MS = 5_000;
/** The slowest refused bodies sent again alone, and the loop's delay allowed meanwhile. */
const RESENT_SLOWEST = 5;
const MAX_LOOP_DELAY_ALONE_MS = 1_000;
const FINAL_STATUSES = ['SUCCESSFUL', 'UNSUCCESSFUL'];

const ctx = useTestApi({ maxBodyBytes: MAX_BODY_BYTES });
let pool: pg.Pool;
beforeAll(() => {
  pool = openPool({ connectionString: testStack().databaseUrl, max: 4 });
  ctx.defer(() => endPool(pool));
});

const fundedPartner = () =>
  createTestPartner(ctx.orm, {
    deposits: { eur: '100000000', btc: '100', doge: '10000000', eth: '1000', ltc: '1000', pol: '10000000', usdc: '10000000' },
  });

interface Outcome {
  status: number;
  errorCode: string | undefined;
  errorMessage: string | undefined;
  id: string | undefined;
  ms: number;
  body: HostileBody;
  responseText: string;
}

interface RouteRun {
  outcomes: Outcome[];
  maxLoopDelayMs: number;
  p99LoopDelayMs: number;
  p999LoopDelayMs: number;
  lockFetches: number;
}

/** Sends every body, IN_FLIGHT at a time (or as asked), timing each and the event loop throughout. */
async function sendAll(partner: TestPartner, path: string, bodies: HostileBody[], inFlight = IN_FLIGHT): Promise<RouteRun> {
  const loop = monitorEventLoopDelay({ resolution: 10 });
  loop.enable();
  const outcomes: Outcome[] = [];
  let lockFetches = 0;
  let next = 0;
  const sendOne = async (body: HostileBody): Promise<Outcome> => {
    const headers: Record<string, string> = body.kind === 'raw' && body.contentType ? { 'content-type': body.contentType } : {};
    let started = performance.now();
    let response: TestResponse;
    try {
      let lockId: string | undefined;
      if (body.kind === 'json' && hasRealLock(body.value)) {
        lockFetches += 1;
        lockId = (await ctx.api.request('GET', '/v1/partner/get-lock', { apiKey: partner.apiKey })).json.id;
      }
      const text = body.kind === 'raw' ? body.text : toJsonText(body.value, lockId);
      started = performance.now();
      response = await ctx.api.request('POST', path, { apiKey: partner.apiKey, body: text, headers });
    } catch (error) {
      // No answer at all (the connection reset under a blocked event loop): worse than a 5xx.
      const cause = error instanceof Error && error.cause instanceof Error ? `: ${error.cause.message}` : '';
      return {
        status: 0,
        errorCode: undefined,
        errorMessage: undefined,
        id: undefined,
        ms: performance.now() - started,
        body,
        responseText: `${String(error)}${cause}`,
      };
    }
    const ms = performance.now() - started;
    const json = typeof response.json === 'object' && response.json !== null ? response.json : {};
    return {
      status: response.status,
      errorCode: json.errorCode,
      errorMessage: json.errorMessage,
      id: json.withdrawalId ?? json.transferId ?? json.exchangeId,
      ms,
      body,
      responseText: response.text.slice(0, 2_000),
    };
  };
  await Promise.all(
    Array.from({ length: inFlight }, async () => {
      while (next < bodies.length) {
        const body = bodies[next++]!;
        outcomes.push(await sendOne(body));
      }
    }),
  );
  loop.disable();
  return {
    outcomes,
    maxLoopDelayMs: loop.max / 1e6,
    p99LoopDelayMs: loop.percentile(99) / 1e6,
    p999LoopDelayMs: loop.percentile(99.9) / 1e6,
    lockFetches,
  };
}

/**
 * The slowest refused bodies of a run, sent again one at a time: none may hold the event loop
 * (refused ones only: they move nothing, so the ledger's checks after the run are untouched).
 */
async function expectSlowestHoldNothingAlone(partner: TestPartner, route: string, path: string, run: RouteRun): Promise<void> {
  const slowest = run.outcomes
    .filter((outcome) => outcome.status >= 400)
    .sort((a, b) => b.ms - a.ms)
    .slice(0, RESENT_SLOWEST);
  const again = await sendAll(
    partner,
    path,
    slowest.map((outcome) => outcome.body),
    1,
  );
  console.log(
    `${route} (seed ${SEED}): the ${slowest.length} slowest refused bodies (${slowest.map((outcome) => outcome.ms.toFixed(0)).join(', ')} ms) ` +
      `sent again alone: ${again.outcomes.map((outcome) => `${outcome.status} in ${outcome.ms.toFixed(0)} ms`).join(', ')}; ` +
      `event-loop delay max ${again.maxLoopDelayMs.toFixed(0)} ms`,
  );
  expect(again.outcomes.filter((outcome) => outcome.status >= 500 || outcome.status === 0)).toEqual([]);
  // Both: a body that holds the loop makes its own answer late, and the loop's timer too.
  expect(again.outcomes.filter((outcome) => outcome.ms >= MAX_LOOP_DELAY_ALONE_MS).map((outcome) => describeBody(outcome.body))).toEqual(
    [],
  );
  expect(again.maxLoopDelayMs).toBeLessThan(MAX_LOOP_DELAY_ALONE_MS);
}

function hasRealLock(value: unknown): boolean {
  return typeof value === 'object' && value !== null && Object.values(value).includes(REAL_LOCK);
}

function describeBody(body: HostileBody): string {
  const text = body.kind === 'raw' ? body.text : toJsonText(body.value, '<lock>');
  return text.length > 300 ? `${text.slice(0, 300)}… (${text.length} characters)` : text;
}

/** Bodies the API must refuse for their text alone, and with which code. */
function expectedTextRefusal(body: HostileBody): boolean {
  if (body.kind !== 'json' || !isValidJsonValue(body.value) || nestingDepth(body.value) > 8) return false;
  if (Buffer.byteLength(toJsonText(body.value, '00000000-0000-4000-8000-000000000000')) > MAX_BODY_BYTES) return false;
  return hasUnsafeText(body.value);
}

/** The checks every route shares: no 5xx, unsafe text refused with the route's code, a report. */
function checkAnswers(route: string, run: RouteRun, textRefusalCode: string): Outcome[] {
  const { outcomes } = run;
  expect(outcomes).toHaveLength(BODIES_PER_ROUTE);
  const slowest = outcomes.reduce((a, b) => (b.ms > a.ms ? b : a));
  process.stderr.write(
    `${route} (seed ${SEED}): slowest request ${slowest.ms.toFixed(0)} ms (${slowest.status}${slowest.errorCode ? ` ${slowest.errorCode}` : ''}: ` +
      `${describeBody(slowest.body).slice(0, 120)}); max event-loop delay ${run.maxLoopDelayMs.toFixed(0)} ms\n`,
  );
  // Status 0: no answer at all.
  const serverErrors = outcomes.filter((outcome) => outcome.status >= 500 || outcome.status === 0);
  for (const outcome of serverErrors.slice(0, 5)) {
    process.stderr.write(
      `[seed ${SEED}] ${route} answered ${outcome.status} after ${outcome.ms.toFixed(0)} ms: ${outcome.responseText}\n  to ${describeBody(outcome.body)}\n`,
    );
  }
  expect({ seed: SEED, serverErrors: serverErrors.length }).toEqual({ seed: SEED, serverErrors: 0 });

  const unsafe = outcomes.filter((outcome) => expectedTextRefusal(outcome.body));
  const wronglyAnswered = unsafe.filter(
    (outcome) =>
      outcome.status !== 400 ||
      outcome.errorCode !== textRefusalCode ||
      !/must not contain control characters|well-formed Unicode/.test(outcome.errorMessage ?? ''),
  );
  for (const outcome of wronglyAnswered.slice(0, 5)) {
    process.stderr.write(
      `[seed ${SEED}] ${route} did not refuse unsafe text: ${outcome.status} ${outcome.responseText}\n  to ${describeBody(outcome.body)}\n`,
    );
  }
  expect({ seed: SEED, unsafeTextNotRefused: wronglyAnswered.length }).toEqual({ seed: SEED, unsafeTextNotRefused: 0 });
  // Every refusal is a proper error body.
  expect(outcomes.filter((outcome) => outcome.status >= 400 && !outcome.errorCode).map((outcome) => outcome.responseText)).toEqual([]);

  const accepted = outcomes.filter((outcome) => outcome.status >= 200 && outcome.status < 300);
  const codes = outcomes.reduce<Record<string, number>>((counts, outcome) => {
    const key = `${outcome.status}${outcome.errorCode ? ` ${outcome.errorCode}` : ''}`;
    counts[key] = (counts[key] ?? 0) + 1;
    return counts;
  }, {});
  console.log(
    `${route} (seed ${SEED}): ${outcomes.length} bodies, ${unsafe.length} with unsafe text, ${accepted.length} accepted ` +
      `(${accepted.filter((outcome) => outcome.body.kind === 'json' && outcome.body.generatedValid).length} generated valid), ` +
      `${run.lockFetches} locks fetched; answers ${JSON.stringify(codes)}; slowest request ${slowest.ms.toFixed(0)} ms ` +
      `(${slowest.status}${slowest.errorCode ? ` ${slowest.errorCode}` : ''}: ${describeBody(slowest.body).slice(0, 120)}); ` +
      `event-loop delay p99 ${run.p99LoopDelayMs.toFixed(0)} ms, p99.9 ${run.p999LoopDelayMs.toFixed(0)} ms, max ${run.maxLoopDelayMs.toFixed(0)} ms`,
  );
  expect(run.p99LoopDelayMs).toBeLessThan(MAX_LOOP_DELAY_P99_MS);
  expect(run.maxLoopDelayMs).toBeLessThan(MAX_LOOP_DELAY_MS);
  // The happy path ran too: some generated bodies were fully valid.
  expect(accepted.length).toBeGreaterThan(0);
  return accepted;
}

async function withBoundedConcurrency<T>(items: T[], work: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  await Promise.all(
    Array.from({ length: IN_FLIGHT }, async () => {
      while (next < items.length) await work(items[next++]!);
    }),
  );
}

async function awaitWithdrawalsFinal(partner: TestPartner, ids: string[]): Promise<void> {
  await withBoundedConcurrency(ids, async (id) => {
    await eventually(
      async () => {
        const response = await ctx.api.request('GET', `/v1/crypto-withdrawal/details/${id}`, { apiKey: partner.apiKey });
        expect({ id, final: FINAL_STATUSES.includes(response.json?.status) }).toEqual({ id, final: true });
      },
      { timeoutMs: 60_000, intervalMs: 250 },
    );
  });
}

async function awaitSepaTransfersFinal(ids: string[]): Promise<void> {
  await eventually(
    async () => {
      const result = await pool.query<{ id: string; status: string }>(`select id, status from sepa_transfer where id = any($1::uuid[])`, [
        ids,
      ]);
      expect(result.rows).toHaveLength(ids.length);
      expect(result.rows.filter((row) => !FINAL_STATUSES.includes(row.status))).toEqual([]);
    },
    { timeoutMs: 60_000, intervalMs: 250 },
  );
}

/** The ledger after the storm: balanced, cached balances true, nothing overdrawn or left held. */
async function expectCleanLedger(partner: TestPartner): Promise<void> {
  expect(await findUnbalancedTransfers(pool)).toEqual([]);
  expect(await findBalanceMismatches(pool)).toEqual([]);
  expect(await findOverdrawnAccounts(pool)).toEqual([]);
  const pending = await pool.query(
    `select t.id, t.kind from ledger_transfer t
      where t.state = 'PENDING'
        and exists (select 1 from ledger_posting p join account a on a.id = p.account_id where p.transfer_id = t.id and a.partner_id = $1)`,
    [partner.partnerId],
  );
  expect(pending.rows).toEqual([]);
}

function sample(arbitrary: fc.Arbitrary<HostileBody>, salt: number): HostileBody[] {
  return fc.sample(arbitrary, { seed: SEED + salt, numRuns: BODIES_PER_ROUTE });
}

/**
 * Per route: beside a second `npm test` on 2 cores a route took over the 5 minutes this once was.
 * What the test bounds is the answers and the event loop, not the machine's speed.
 */
const TIMEOUT_MS = 20 * 60_000;

describe(`hostile bodies on every money-moving POST (${BODIES_PER_ROUTE} each, seed ${SEED})`, () => {
  it(
    'POST /v1/partner/exchange: never 5xx, every 201 final, ledger clean, event loop free',
    async () => {
      const partner = await fundedPartner();
      const run = await sendAll(partner, '/v1/partner/exchange', sample(exchangeBodies(), 1));
      checkAnswers('POST /v1/partner/exchange', run, 'P400');
      await expectCleanLedger(partner);
      await expectSlowestHoldNothingAlone(partner, 'POST /v1/partner/exchange', '/v1/partner/exchange', run);
    },
    TIMEOUT_MS,
  );

  it(
    'POST /v1/partner/crypto-withdrawal: never 5xx, every 200 reaches SUCCESSFUL or UNSUCCESSFUL, ledger clean',
    async () => {
      const partner = await fundedPartner();
      const run = await sendAll(partner, '/v1/partner/crypto-withdrawal', sample(withdrawalBodies(), 2));
      const accepted = checkAnswers('POST /v1/partner/crypto-withdrawal', run, 'P410');
      await awaitWithdrawalsFinal(
        partner,
        accepted.map((outcome) => outcome.id!),
      );
      await expectCleanLedger(partner);
      await expectSlowestHoldNothingAlone(partner, 'POST /v1/partner/crypto-withdrawal', '/v1/partner/crypto-withdrawal', run);
    },
    TIMEOUT_MS,
  );

  it(
    'POST /v1/crypto-withdrawal (for a user): never 5xx, every 200 reaches SUCCESSFUL or UNSUCCESSFUL, ledger clean',
    async () => {
      const partner = await fundedPartner();
      const externalUserId = `hostile-user-${SEED}`;
      await registerUser(ctx.orm, partner, externalUserId);
      const run = await sendAll(partner, '/v1/crypto-withdrawal', sample(withdrawalBodies({ externalUserId }), 3));
      const accepted = checkAnswers('POST /v1/crypto-withdrawal', run, 'P410');
      await awaitWithdrawalsFinal(
        partner,
        accepted.map((outcome) => outcome.id!),
      );
      await expectCleanLedger(partner);
      await expectSlowestHoldNothingAlone(partner, 'POST /v1/crypto-withdrawal', '/v1/crypto-withdrawal', run);
    },
    TIMEOUT_MS,
  );

  it(
    'POST /v1/partner/sepa-transfer: never 5xx, every 201 reaches SUCCESSFUL or UNSUCCESSFUL, ledger clean',
    async () => {
      const partner = await fundedPartner();
      const run = await sendAll(partner, '/v1/partner/sepa-transfer', sample(sepaTransferBodies(), 4));
      const accepted = checkAnswers('POST /v1/partner/sepa-transfer', run, 'P400');
      await awaitSepaTransfersFinal(accepted.map((outcome) => outcome.id!));
      await expectCleanLedger(partner);
      await expectSlowestHoldNothingAlone(partner, 'POST /v1/partner/sepa-transfer', '/v1/partner/sepa-transfer', run);
    },
    TIMEOUT_MS,
  );
});
