import { randomUUID } from 'node:crypto';
import type { emptyActivityWorkflow, emptyLocalActivityWorkflow } from '../ceiling/empty.workflow';
import { runClosedLoop } from '../load/closed-loop';
import type { RunResult } from '../load/run-result';
import { atLeast, atMost, milliseconds, perSecond, reportRow } from '../report';
import type { ReportRow } from '../report';
import { CEILING_TASK_QUEUE } from '../stack';
import { bearer, createBenchPartners } from './fixtures';
import type { BenchPartner } from './fixtures';
import { runPair } from './pairs';
import type { BenchContext, PairOutcome } from './pairs';

const EXCHANGE_CALLERS = 8;
const WITHDRAWAL_CALLERS = 8;
const TEMPORAL_CALLERS = 16;

/** Far below the travel-rule threshold (about EUR 3 at the default rate): no wait for travel-rule data. */
const WITHDRAWAL = {
  currency: 'eth',
  amount: 0.001,
  walletAddress: '0x52908400098527886E0F7030069857D2E4169EE7',
  name: 'Bench Beneficiary',
  walletType: 'CUSTODIAL',
  receiverType: 'NATURAL',
} as const;

type EmptyWorkflowType = 'emptyLocalActivityWorkflow' | 'emptyActivityWorkflow';

/** The ceiling: an empty workflow started and awaited through the same Temporal server, on the bench's own worker. */
function emptyWorkflowLoad(context: BenchContext, type: EmptyWorkflowType, callers: number) {
  const { client } = context;
  return (durationMs: number): Promise<RunResult> =>
    runClosedLoop({
      callers,
      durationMs,
      signal: context.lifecycle.signal,
      call: async () => {
        const options = { taskQueue: CEILING_TASK_QUEUE, workflowId: `bench-empty-${randomUUID()}` };
        if (type === 'emptyLocalActivityWorkflow') await client.workflow.execute<typeof emptyLocalActivityWorkflow>(type, options);
        else await client.workflow.execute<typeof emptyActivityWorkflow>(type, options);
      },
    });
}

/**
 * Exchange end to end: a rate lock (GET /v1/partner/get-lock, not timed: it is one insert, and a
 * partner may hold a lock well before exchanging) then POST /v1/partner/exchange with an
 * Idempotency-Key, timed until its 201 (the exchange is final). The lock fetch still takes the
 * caller's wall time, so it is inside the throughput. One partner per caller.
 */
export async function runExchangeScenario(context: BenchContext): Promise<{ row: ReportRow; outcome: PairOutcome }> {
  const { apiUrl } = context.stack;
  const partners = await createBenchPartners(context.orm, 'exchange', EXCHANGE_CALLERS, { eur: '10000000.00' });
  const partnerOf = (caller: number) => pick(partners, caller);
  const project = (durationMs: number) =>
    runClosedLoop<string>({
      callers: EXCHANGE_CALLERS,
      durationMs,
      signal: context.lifecycle.signal,
      prepare: async (caller) => {
        const lock = (await expectJson(await fetch(`${apiUrl}/v1/partner/get-lock`, { headers: bearer(partnerOf(caller)) }), 200)) as {
          id: string;
        };
        return lock.id;
      },
      call: async (caller, lockId) => {
        const body = { amount: 10, currencyFrom: 'eur', currencyTo: 'btc', lockId };
        await expectJson(await post(`${apiUrl}/v1/partner/exchange`, partnerOf(caller), body), 201);
      },
    });
  const outcome = await runPair(
    context,
    'exchange',
    project,
    emptyWorkflowLoad(context, 'emptyLocalActivityWorkflow', EXCHANGE_CALLERS),
    context.profile.workflowMs,
  );
  const row = reportRow({
    scenario: `exchange end to end, ${EXCHANGE_CALLERS} callers`,
    figure: perSecond(outcome.project.perSecond, 'exchanges'),
    ceiling: `empty workflow, 1 local activity: ${perSecond(outcome.ceiling.perSecond, 'wf')}`,
    ratio: outcome.project.perSecond / outcome.ceiling.perSecond,
    p50Ms: outcome.project.p50Ms,
    p99Ms: outcome.project.p99Ms,
    goal: atLeast(0.8),
  });
  return { row, outcome };
}

/**
 * Crypto withdrawal early return: POST /v1/partner/crypto-withdrawal answers once amount + fee
 * are reserved; broadcast, confirmation (the simulated chain's default delay) and settlement go
 * on in the background and are never waited for, so the legs of earlier withdrawals run during
 * every later run, the ceiling's included. Compared by p50, as the goal is.
 */
export async function runWithdrawalScenario(context: BenchContext): Promise<{ row: ReportRow; outcome: PairOutcome }> {
  const { apiUrl } = context.stack;
  const partners = await createBenchPartners(context.orm, 'withdrawal', WITHDRAWAL_CALLERS, { eth: '100000' });
  const project = (durationMs: number) =>
    runClosedLoop({
      callers: WITHDRAWAL_CALLERS,
      durationMs,
      signal: context.lifecycle.signal,
      call: async (caller) => {
        await expectJson(await post(`${apiUrl}/v1/partner/crypto-withdrawal`, pick(partners, caller), WITHDRAWAL), 200);
      },
    });
  const outcome = await runPair(
    context,
    'withdrawal',
    project,
    emptyWorkflowLoad(context, 'emptyLocalActivityWorkflow', WITHDRAWAL_CALLERS),
    context.profile.workflowMs,
  );
  const row = reportRow({
    scenario: `crypto withdrawal early return, ${WITHDRAWAL_CALLERS} callers (p50)`,
    figure: `p50 ${milliseconds(outcome.project.p50Ms)}, ${perSecond(outcome.project.perSecond, 'req')}`,
    ceiling: `empty workflow: p50 ${milliseconds(outcome.ceiling.p50Ms)}, ${perSecond(outcome.ceiling.perSecond, 'wf')}`,
    ratio: outcome.project.p50Ms / outcome.ceiling.p50Ms,
    p50Ms: outcome.project.p50Ms,
    p99Ms: outcome.project.p99Ms,
    goal: atMost(1.5),
  });
  return { row, outcome };
}

/** The Temporal server itself, no project code: one regular activity against one local activity, 16 callers. */
export async function runTemporalServerScenario(context: BenchContext): Promise<{ row: ReportRow; outcome: PairOutcome }> {
  const outcome = await runPair(
    context,
    'temporal server',
    emptyWorkflowLoad(context, 'emptyActivityWorkflow', TEMPORAL_CALLERS),
    emptyWorkflowLoad(context, 'emptyLocalActivityWorkflow', TEMPORAL_CALLERS),
    context.profile.workflowMs,
  );
  const row = reportRow({
    scenario: `Temporal dev server: empty workflow, 1 activity, ${TEMPORAL_CALLERS} callers (informative)`,
    figure: perSecond(outcome.project.perSecond, 'wf'),
    ceiling: `1 local activity: ${perSecond(outcome.ceiling.perSecond, 'wf')}`,
    ratio: outcome.project.perSecond / outcome.ceiling.perSecond,
    p50Ms: outcome.project.p50Ms,
    p99Ms: outcome.project.p99Ms,
    goal: null,
  });
  return { row, outcome };
}

function post(url: string, partner: BenchPartner, body: unknown): Promise<Response> {
  return fetch(url, {
    method: 'POST',
    headers: { ...bearer(partner), 'content-type': 'application/json', 'idempotency-key': randomUUID() },
    body: JSON.stringify(body),
  });
}

/** The answer's JSON when its status is the expected one; otherwise an error with the body, so a broken run says why. */
async function expectJson(response: Response, status: number): Promise<unknown> {
  const text = await response.text();
  if (response.status !== status) throw new Error(`${response.url} answered ${response.status}: ${text.slice(0, 300)}`);
  return JSON.parse(text) as unknown;
}

function pick(partners: readonly BenchPartner[], caller: number): BenchPartner {
  const partner = partners[caller % partners.length];
  if (!partner) throw new Error('no bench partners');
  return partner;
}
