import { condition, proxyActivities, proxyLocalActivities, setHandler, upsertSearchAttributes, workflowInfo } from '@temporalio/workflow';
import type { ActivityOptions, LocalActivityOptions } from '@temporalio/workflow';
import { fundsReservedUpdate } from '../../contracts';
import { OPERATION_STAGE, OPERATION_STATUS } from '../../core/search-attributes';
import {
  AWAIT_ANSWER,
  BOUNDED_DATABASE_STEP,
  DURABLE_DATABASE_STEP,
  DURABLE_STEP_LOCAL_ATTEMPTS,
  EXTERNAL_CALL,
} from '../../workflows/activity-options';

/**
 * The same-shape ceilings (issue 22): for each money movement, an empty workflow that makes the
 * commands its settled path makes, in the same order and workflow tasks: the same local and
 * regular activities (same names, the same option sets from workflows/activity-options.ts), the
 * same search-attribute upserts, and the early answer through the same fundsReserved update
 * (Update-With-Start). The activities do nothing. What it leaves out is what our code adds:
 * activity bodies, payload encryption, step summaries, the status query and current details.
 *
 * Kept from drifting by two checks: test/workflows/same-shape.test.ts runs each real workflow
 * (activities mocked) and its same-shape workflow and compares their commands and every
 * activity's options; the bench compares the histories of a project run and a ceiling run of
 * its own, every run (bench/scenarios/shape-check.ts).
 */
export type ShapeStep =
  | { local: string; options: LocalActivityOptions }
  | { activity: string; options: ActivityOptions }
  /** The OperationStatus / OperationStage upsert of OperationTracker.report. */
  | { report: { status: string; stage: string } }
  /** The fundsReserved update answers its caller (ReservationGate.opened). */
  | 'answer the caller';

export const SAME_SHAPES = {
  /** exchangeWorkflow, settled: one local step, then the final report. */
  exchange: [{ local: 'executeExchange', options: BOUNDED_DATABASE_STEP }, { report: { status: 'SUCCESSFUL', stage: 'SETTLED' } }],
  /** cryptoWithdrawalWorkflow, settled at the first confirmation poll, no travel-rule data needed. */
  cryptoWithdrawal: [
    { local: 'reserveWithdrawal', options: BOUNDED_DATABASE_STEP },
    'answer the caller',
    { report: { status: 'IN_PROGRESS', stage: 'RESERVED' } },
    { activity: 'checkTravelRule', options: DURABLE_DATABASE_STEP },
    { local: 'markWithdrawalHandOff', options: DURABLE_STEP_LOCAL_ATTEMPTS },
    { activity: 'broadcastWithdrawal', options: EXTERNAL_CALL },
    { report: { status: 'IN_PROGRESS', stage: 'BROADCAST' } },
    { activity: 'pollWithdrawalConfirmation', options: AWAIT_ANSWER },
    { local: 'settleWithdrawal', options: DURABLE_STEP_LOCAL_ATTEMPTS },
    { report: { status: 'SUCCESSFUL', stage: 'SETTLED' } },
  ],
  /** sepaTransferWorkflow, settled at the first answer poll. */
  sepaTransfer: [
    { local: 'reserveSepaTransfer', options: BOUNDED_DATABASE_STEP },
    'answer the caller',
    { report: { status: 'IN_PROGRESS', stage: 'RESERVED' } },
    { activity: 'markSepaHandOff', options: DURABLE_DATABASE_STEP },
    { activity: 'submitSepaTransfer', options: EXTERNAL_CALL },
    { report: { status: 'IN_PROGRESS', stage: 'SUBMITTED' } },
    { activity: 'pollBankAnswer', options: AWAIT_ANSWER },
    { local: 'settleSepaTransfer', options: DURABLE_STEP_LOCAL_ATTEMPTS },
    { report: { status: 'SUCCESSFUL', stage: 'SETTLED' } },
  ],
} as const satisfies Record<string, readonly ShapeStep[]>;

export type ShapeName = keyof typeof SAME_SHAPES;

/** The activity names the shapes schedule: the ceiling worker registers an empty one for each. */
export function shapeActivityNames(): string[] {
  const steps: readonly ShapeStep[] = Object.values(SAME_SHAPES).flat();
  const names = steps.flatMap((step) =>
    typeof step !== 'object' || 'report' in step ? [] : ['local' in step ? step.local : step.activity],
  );
  return [...new Set(names)];
}

type EmptyStep = () => Promise<unknown>;

async function runShape(steps: readonly ShapeStep[]): Promise<string> {
  let answered = false;
  if (steps.includes('answer the caller')) {
    setHandler(fundsReservedUpdate, async () => {
      await condition(() => answered);
      return { id: workflowInfo().workflowId };
    });
  }
  for (const step of steps) {
    if (step === 'answer the caller') answered = true;
    else if ('report' in step) {
      upsertSearchAttributes([
        { key: OPERATION_STATUS, value: step.report.status },
        { key: OPERATION_STAGE, value: step.report.stage },
      ]);
    } else if ('local' in step) await proxyLocalActivities<Record<string, EmptyStep>>(step.options)[step.local]!();
    else await proxyActivities<Record<string, EmptyStep>>(step.options)[step.activity]!();
  }
  return 'done';
}

/** Started and awaited like the exchange (execute). */
export async function sameShapeExchangeWorkflow(): Promise<string> {
  return runShape(SAME_SHAPES.exchange);
}

/** Started like the withdrawal (Update-With-Start of fundsReserved), then awaited to its end. */
export async function sameShapeCryptoWithdrawalWorkflow(): Promise<string> {
  return runShape(SAME_SHAPES.cryptoWithdrawal);
}

/** Started like the SEPA transfer (Update-With-Start of fundsReserved), then awaited to its end. */
export async function sameShapeSepaTransferWorkflow(): Promise<string> {
  return runShape(SAME_SHAPES.sepaTransfer);
}

/** Each money movement's workflow type, and its same-shape ceiling's. */
export const SAME_SHAPE_WORKFLOWS = {
  exchange: { project: 'exchangeWorkflow', ceiling: 'sameShapeExchangeWorkflow' },
  cryptoWithdrawal: { project: 'cryptoWithdrawalWorkflow', ceiling: 'sameShapeCryptoWithdrawalWorkflow' },
  sepaTransfer: { project: 'sepaTransferWorkflow', ceiling: 'sameShapeSepaTransferWorkflow' },
} as const satisfies Record<ShapeName, { project: string; ceiling: string }>;
