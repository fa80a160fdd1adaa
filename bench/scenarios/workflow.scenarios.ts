import { randomUUID } from 'node:crypto';
import { WithStartWorkflowOperation } from '@temporalio/client';
import { cryptoWithdrawalContract, exchangeContract, fundsReservedUpdate, sepaTransferContract } from '../../contracts';
import type { OperationProgress } from '../../contracts';
import type { emptyActivityWorkflow, emptyLocalActivityWorkflow } from '../ceiling/empty.workflow';
import { SAME_SHAPE_WORKFLOWS } from '../ceiling/same-shape.workflow';
import type { ShapeName } from '../ceiling/same-shape.workflow';
import { runClosedLoop } from '../load/closed-loop';
import type { RunResult } from '../load/run-result';
import { atLeast, atMost, milliseconds, perSecond, reportRow } from '../report';
import type { Goal, ReportRow } from '../report';
import { CEILING_TASK_QUEUE } from '../stack';
import { bearer, createBenchPartners } from './fixtures';
import type { BenchPartner } from './fixtures';
import { runPair } from './pairs';
import type { BenchContext, PairOutcome } from './pairs';
import { checkShape } from './shape-check';
import type { ShapeCheck } from './shape-check';
import { stepTimesOf } from './step-times';
import type { StepTimes } from './step-times';

const EXCHANGE_CALLERS = 8;
export const OUTGOING_CALLERS = 8;
const TEMPORAL_CALLERS = 16;

/** The closed loop's mark for an outgoing payment's early answer (funds reserved), before it settles. */
export const ANSWERED = 'answered';

/** Far below the travel-rule threshold (about EUR 3 at the default rate): no wait for travel-rule data. */
export const WITHDRAWAL = {
  currency: 'eth',
  amount: 0.001,
  walletAddress: '0x52908400098527886E0F7030069857D2E4169EE7',
  name: 'Bench Beneficiary',
  walletType: 'CUSTODIAL',
  receiverType: 'NATURAL',
} as const;

/** A transfer to a natural person the simulated bank settles (its IBAN is on no reject list). */
const SEPA_TRANSFER = {
  currency: 'eur',
  amount: '12.50',
  receiverType: 'NATURAL',
  receiverFirstName: 'Marie',
  receiverLastName: 'Curie',
  destinationIban: 'DE89370400440532013000',
  transferTitle: 'Bench transfer',
} as const;

/** The money movements the bench drives through the API, each beside its same-shape ceiling. */
export type MoneyMovement = ShapeName;

/** How many of each side's last finished workflows the step times are read from. */
const STEP_TIME_SAMPLES = 10;

/** The workflow ids of the last operations each side finished: the shape check and the step times read their histories. */
class LastFinished {
  readonly project: string[] = [];
  readonly ceiling: string[] = [];

  finished(side: 'project' | 'ceiling', workflowId: string): void {
    const ids = this[side];
    ids.push(workflowId);
    if (ids.length > STEP_TIME_SAMPLES) ids.shift();
  }
}

type EmptyWorkflowType = 'emptyLocalActivityWorkflow' | 'emptyActivityWorkflow';

/** An empty workflow started and awaited through the same Temporal server, on the bench's own worker (the informative Temporal line). */
function emptyWorkflowLoad(context: BenchContext, type: EmptyWorkflowType, callers: number) {
  const client = context.ceilingClient;
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
 * The same-shape ceiling of a money movement (bench/ceiling/same-shape.workflow.ts), called as the
 * API calls the real one: the exchange started and awaited (execute), an outgoing payment started
 * with Update-With-Start of fundsReserved (its early answer, marked), then awaited to its end.
 */
function sameShapeLoad(context: BenchContext, movement: MoneyMovement, callers: number, last: LastFinished) {
  const client = context.ceilingClient;
  const workflowType = SAME_SHAPE_WORKFLOWS[movement].ceiling;
  return (durationMs: number): Promise<RunResult> =>
    runClosedLoop({
      callers,
      durationMs,
      signal: context.lifecycle.signal,
      call: async (_caller, _prepared, mark) => {
        const workflowId = `bench-same-shape-${randomUUID()}`;
        if (movement === 'exchange') {
          await client.workflow.execute(workflowType, { taskQueue: CEILING_TASK_QUEUE, workflowId });
        } else {
          const operation = new WithStartWorkflowOperation(workflowType, {
            taskQueue: CEILING_TASK_QUEUE,
            workflowId,
            // As the API starts the real ones (operations/temporal/workflow-runner.ts).
            workflowIdConflictPolicy: 'USE_EXISTING',
          });
          await client.workflow.executeUpdateWithStart(fundsReservedUpdate, { startWorkflowOperation: operation });
          mark(ANSWERED);
          await (await operation.workflowHandle()).result();
        }
        last.finished('ceiling', workflowId);
      },
    });
}

/** Partners and the project's load of one money movement, through the API as a partner calls it. */
export async function projectLoad(
  context: BenchContext,
  movement: MoneyMovement,
  last: LastFinished = new LastFinished(),
  callers: number = movement === 'exchange' ? EXCHANGE_CALLERS : OUTGOING_CALLERS,
): Promise<(durationMs: number) => Promise<RunResult>> {
  const { apiUrl } = context.stack;
  const { client } = context;
  const funds = movement === 'cryptoWithdrawal' ? { eth: '100000' } : { eur: '10000000.00' };
  const partners = await createBenchPartners(context.orm, movement, callers, funds);
  const partnerOf = (caller: number) => pick(partners, caller);
  /** Waits for an outgoing payment's workflow to end, as the ceiling's caller does; anything but SETTLED is an error. */
  const settled = async (workflowId: string) => {
    const progress = (await client.workflow.getHandle(workflowId).result()) as OperationProgress;
    if (progress.stage !== 'SETTLED') throw new Error(`${workflowId} ended ${progress.status} at ${progress.stage}`);
    last.finished('project', workflowId);
  };
  if (movement === 'exchange') {
    return (durationMs) =>
      runClosedLoop<string>({
        callers,
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
          const { exchangeId } = (await expectJson(await post(`${apiUrl}/v1/partner/exchange`, partnerOf(caller), body), 201)) as {
            exchangeId: string;
          };
          // Final when answered 201: its workflow has completed.
          last.finished('project', exchangeContract.workflowId(exchangeId));
        },
      });
  }
  if (movement === 'cryptoWithdrawal') {
    return (durationMs) =>
      runClosedLoop({
        callers,
        durationMs,
        signal: context.lifecycle.signal,
        call: async (caller, _prepared, mark) => {
          const answer = await expectJson(await post(`${apiUrl}/v1/partner/crypto-withdrawal`, partnerOf(caller), WITHDRAWAL), 200);
          mark(ANSWERED);
          await settled(cryptoWithdrawalContract.workflowId((answer as { withdrawalId: string }).withdrawalId));
        },
      });
  }
  return (durationMs) =>
    runClosedLoop({
      callers,
      durationMs,
      signal: context.lifecycle.signal,
      call: async (caller, _prepared, mark) => {
        const answer = await expectJson(await post(`${apiUrl}/v1/partner/sepa-transfer`, partnerOf(caller), SEPA_TRANSFER), 201);
        mark(ANSWERED);
        await settled(sepaTransferContract.workflowId((answer as { transferId: string }).transferId));
      },
    });
}

export interface MovementOutcome extends PairOutcome {
  shape?: ShapeCheck;
  stepTimes?: StepTimes;
}

/**
 * Both sides' last finished workflows compared (see shape-check.ts), and where their time went
 * (step-times.ts); nothing when a side finished none.
 */
async function historiesOf(context: BenchContext, last: LastFinished): Promise<{ shape?: ShapeCheck; stepTimes?: StepTimes }> {
  const project = last.project.at(-1);
  const ceiling = last.ceiling.at(-1);
  if (!project || !ceiling) return {};
  return {
    shape: await checkShape(context.client, project, ceiling),
    stepTimes: await stepTimesOf(context.client, last.project, last.ceiling),
  };
}

function ceilingLabel(shape: ShapeCheck | undefined): string {
  return shape?.same ? 'same shape empty workflow' : 'same shape empty workflow (SHAPES DIFFER: see notes)';
}

/**
 * Exchange end to end: a rate lock (GET /v1/partner/get-lock, not timed: it is one insert, and a
 * partner may hold a lock well before exchanging) then POST /v1/partner/exchange with an
 * Idempotency-Key, timed until its 201 (the exchange is final). The lock fetch still takes the
 * caller's wall time, so it is inside the throughput. One partner per caller. Beside the same-shape
 * empty workflow, started and awaited as the API does.
 */
export async function runExchangeScenario(context: BenchContext): Promise<{ row: ReportRow; outcome: MovementOutcome }> {
  const last = new LastFinished();
  const project = await projectLoad(context, 'exchange', last);
  const outcome = await runPair(
    context,
    'exchange',
    project,
    sameShapeLoad(context, 'exchange', EXCHANGE_CALLERS, last),
    context.profile.workflowMs,
  );
  const { shape, stepTimes } = await historiesOf(context, last);
  const row = reportRow({
    scenario: `exchange end to end, ${EXCHANGE_CALLERS} callers`,
    figure: perSecond(outcome.project.perSecond, 'exchanges'),
    ceiling: `${ceilingLabel(shape)}: ${perSecond(outcome.ceiling.perSecond, 'wf')}`,
    ratio: outcome.project.perSecond / outcome.ceiling.perSecond,
    p50Ms: outcome.project.p50Ms,
    p99Ms: outcome.project.p99Ms,
    goal: atLeast(0.8),
  });
  return { row, outcome: { ...outcome, ...(shape ? { shape } : {}), ...(stepTimes ? { stepTimes } : {}) } };
}

/**
 * An outgoing payment (crypto withdrawal, SEPA transfer), each caller one payment after another:
 * POST until its early answer (funds reserved), then its workflow awaited until it has settled
 * (the bench's Temporal client, as the ceiling's caller awaits its own). So every run ends with
 * its payments settled and leaves no background legs to the next one. The simulated chain and
 * bank answer at once in the bench (stack.ts), so the settled time is ours and Temporal's, not a
 * simulated wait. Two rows: the early answer by p50, the settled payments by throughput.
 */
async function runOutgoingScenario(
  context: BenchContext,
  movement: Exclude<MoneyMovement, 'exchange'>,
  labels: { name: string; unit: string; earlyGoal: Goal | null },
): Promise<{ rows: ReportRow[]; outcome: MovementOutcome }> {
  const last = new LastFinished();
  const project = await projectLoad(context, movement, last);
  const outcome = await runPair(
    context,
    labels.name,
    project,
    sameShapeLoad(context, movement, OUTGOING_CALLERS, last),
    context.profile.workflowMs,
  );
  const { shape, stepTimes } = await historiesOf(context, last);
  const early = { project: outcome.project.marks[ANSWERED], ceiling: outcome.ceiling.marks[ANSWERED] };
  const earlyP50 = { project: early.project?.p50Ms ?? Number.NaN, ceiling: early.ceiling?.p50Ms ?? Number.NaN };
  const rows = [
    reportRow({
      scenario: `${labels.name} early return, ${OUTGOING_CALLERS} callers (p50)`,
      figure: `p50 ${milliseconds(earlyP50.project)}`,
      ceiling: `${ceilingLabel(shape)}: p50 ${milliseconds(earlyP50.ceiling)}`,
      ratio: earlyP50.project / earlyP50.ceiling,
      p50Ms: earlyP50.project,
      p99Ms: early.project?.p99Ms ?? null,
      // Judged with one caller (the row below): at 8 the 2-core machine is saturated, and every step waits for a CPU.
      goal: null,
    }),
    reportRow({
      scenario: `${labels.name} settled, ${OUTGOING_CALLERS} callers`,
      figure: perSecond(outcome.project.perSecond, labels.unit),
      ceiling: `${ceilingLabel(shape)}: ${perSecond(outcome.ceiling.perSecond, 'wf')}`,
      ratio: outcome.project.perSecond / outcome.ceiling.perSecond,
      p50Ms: outcome.project.p50Ms,
      p99Ms: outcome.project.p99Ms,
      goal: atLeast(0.8),
    }),
  ];
  if (labels.earlyGoal) rows.splice(1, 0, await earlyAnswerAlone(context, movement, labels.name, labels.earlyGoal));
  return { rows, outcome: { ...outcome, ...(shape ? { shape } : {}), ...(stepTimes ? { stepTimes } : {}) } };
}

/**
 * The early answer with one caller on each side: what our own work adds to a request when the
 * machine is otherwise idle. Its goal is judged here, not at 8 callers, where every step also
 * waits for a CPU (the 2-core machine nearly saturated).
 */
async function earlyAnswerAlone(
  context: BenchContext,
  movement: Exclude<MoneyMovement, 'exchange'>,
  name: string,
  goal: Goal,
): Promise<ReportRow> {
  const last = new LastFinished();
  const outcome = await runPair(
    context,
    `${name}, 1 caller`,
    await projectLoad(context, movement, last, 1),
    sameShapeLoad(context, movement, 1, last),
    context.profile.workflowMs,
  );
  const project = outcome.project.marks[ANSWERED];
  const ceiling = outcome.ceiling.marks[ANSWERED];
  const p50 = { project: project?.p50Ms ?? Number.NaN, ceiling: ceiling?.p50Ms ?? Number.NaN };
  return reportRow({
    scenario: `${name} early return, 1 caller (p50)`,
    figure: `p50 ${milliseconds(p50.project)}`,
    ceiling: `same shape empty workflow: p50 ${milliseconds(p50.ceiling)}`,
    ratio: p50.project / p50.ceiling,
    p50Ms: p50.project,
    p99Ms: project?.p99Ms ?? null,
    goal,
  });
}

/** Crypto withdrawal: the early answer (p50 within 1.25× of its ceiling's, with one caller) and the settled withdrawals. */
export function runWithdrawalScenario(context: BenchContext): Promise<{ rows: ReportRow[]; outcome: MovementOutcome }> {
  return runOutgoingScenario(context, 'cryptoWithdrawal', { name: 'crypto withdrawal', unit: 'withdrawals', earlyGoal: atMost(1.25) });
}

/** SEPA transfer: the same two rows; its early answer has no goal of its own. */
export function runSepaScenario(context: BenchContext): Promise<{ rows: ReportRow[]; outcome: MovementOutcome }> {
  return runOutgoingScenario(context, 'sepaTransfer', { name: 'SEPA transfer', unit: 'transfers', earlyGoal: null });
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

export function post(url: string, partner: BenchPartner, body: unknown): Promise<Response> {
  return fetch(url, {
    method: 'POST',
    headers: { ...bearer(partner), 'content-type': 'application/json', 'idempotency-key': randomUUID() },
    body: JSON.stringify(body),
  });
}

/** The answer's JSON when its status is the expected one; otherwise an error with the body, so a broken run says why. */
export async function expectJson(response: Response, status: number): Promise<unknown> {
  const text = await response.text();
  if (response.status !== status) throw new Error(`${response.url} answered ${response.status}: ${text.slice(0, 300)}`);
  return JSON.parse(text) as unknown;
}

export function pick(partners: readonly BenchPartner[], caller: number): BenchPartner {
  const partner = partners[caller % partners.length];
  if (!partner) throw new Error('no bench partners');
  return partner;
}
