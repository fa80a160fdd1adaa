import { setMaxListeners } from 'node:events';
import { WithStartWorkflowOperation, WorkflowExecutionAlreadyStartedError, WorkflowFailedError } from '@temporalio/client';
import type { Client, WorkflowStartOptions } from '@temporalio/client';
import type { SearchAttributePair } from '@temporalio/common';
import type { Workflow } from '@temporalio/common';
import type pg from 'pg';
import { DomainError, isDomainErrorKind } from '../../core/errors';
import { currentLogContext } from '../../core/logger';
import { recordAcceptedOperation } from '../../db/queries/accepted-operation.queries';
import { isOperationAccepted } from '../../db/queries/early-refusal.queries';
import type { AcceptedOperation } from '../../db/queries/accepted-operation.queries';
import { OPERATION_TYPES } from '../../core/operation-types';
import type { OperationType } from '../../core/operation-types';
import { tombstoneOperation } from '../../db/queries/ledger-tombstone.queries';
import { fundsReservedUpdate } from '../../contracts';
import type { OperationProgress, WorkflowContract } from '../../contracts';
import type { Admission } from './admission';
import { isOwnDeadline } from './own-deadline';
import { domainErrorOf } from './temporal-errors';
import type { WorkflowMetadata } from './workflow-summary';

/** Where to run workflows, and how long a caller may wait for the answer. */
export interface WorkflowTarget {
  client: Client;
  taskQueue: string;
  /** Past this a tombstone decides the caller's answer (see withinResponseTime). */
  responseTimeoutMs: number;
  /** The primary, where the tombstone that decides a timed-out request is written. */
  pool: pg.Pool;
  /** Refuses a new operation while the workers are too far behind to serve it in time (admission.ts). */
  admission?: Admission;
}

/** One operation's workflow, started through its contract: the arguments type-check against it. */
export interface WorkflowStart<W extends Workflow> {
  contract: WorkflowContract<W>;
  args: Parameters<W>;
  searchAttributes: SearchAttributePair[];
  /** The summary and details the Temporal UI shows (no personal data: see workflow-summary.ts). */
  metadata?: WorkflowMetadata;
  operation: { type: OperationType; id: string; partnerId: string };
  /** Recorded before the workflow starts: all its first step moves money by. */
  request: AcceptedOperation['request'];
  /**
   * Throws the refusal the workflow would end in, read from current data, for an operation not yet accepted: what cannot
   * succeed costs a read, not a record and a workflow. Advisory: the workflow still decides what passes.
   */
  refuseEarly?: () => Promise<void>;
}

/** The workflow id is the business key: a running workflow is joined, a closed one's outcome read, never started again. */
const ID_POLICIES = { workflowIdConflictPolicy: 'USE_EXISTING', workflowIdReusePolicy: 'REJECT_DUPLICATE' } as const;

/** Starts (or joins) a workflow whose result is final (the exchange) and waits for it. */
export function executeWorkflow<W extends Workflow>(target: WorkflowTarget, start: WorkflowStart<W>): Promise<void> {
  return admitted(target, start, () => executeAccepted(target, start));
}

async function executeAccepted<W extends Workflow>(target: WorkflowTarget, start: WorkflowStart<W>): Promise<void> {
  let progress: OperationProgress | undefined;
  try {
    progress = await withinResponseTime(
      target,
      start,
      () => target.client.workflow.execute<W>(start.contract.workflowType, startOptions(target, start)) as Promise<OperationProgress>,
    );
  } catch (error) {
    if (error instanceof WorkflowFailedError) return decideFailedWorkflow(target, start, error);
    if (!(error instanceof WorkflowExecutionAlreadyStartedError)) throw domainErrorOf(error) ?? error;
    progress = await closedWorkflowResult(target, start);
  }
  throwIfRefused(progress);
}

/** Starts (or joins) a workflow and returns once it has reserved the funds (Update-With-Start on fundsReserved). */
export function startAndAwaitReservation<W extends Workflow>(target: WorkflowTarget, start: WorkflowStart<W>): Promise<void> {
  return admitted(target, start, () => awaitReservation(target, start));
}

async function awaitReservation<W extends Workflow>(target: WorkflowTarget, start: WorkflowStart<W>): Promise<void> {
  const operation = new WithStartWorkflowOperation<W>(start.contract.workflowType, {
    ...startOptions(target, start),
    workflowIdConflictPolicy: 'USE_EXISTING',
  });
  try {
    await withinResponseTime(target, start, () =>
      target.client.workflow.executeUpdateWithStart(fundsReservedUpdate, { startWorkflowOperation: operation }),
    );
  } catch (error) {
    if (!(error instanceof WorkflowExecutionAlreadyStartedError)) throw domainErrorOf(error) ?? error;
    // Closed already: it reserved unless its result is a refusal.
    throwIfRefused(await closedWorkflowResult(target, start));
  }
}

/**
 * Admission first and then the early refusals, both before anything is recorded: a refused request leaves no trace and
 * adds no work. Then the record the workflow moves money by (it carries only the id; a replay of the key keeps the first
 * one), and the wait for the answer, in flight for admission until it ends however it ends.
 */
async function admitted(target: WorkflowTarget, start: WorkflowStart<Workflow>, wait: () => Promise<void>): Promise<void> {
  const ticket = target.admission?.admit(start.operation.partnerId);
  try {
    if (start.refuseEarly && !(await isOperationAccepted(target.pool, start.operation.id))) await start.refuseEarly();
    await recordAcceptedOperation(target.pool, {
      id: start.operation.id,
      kind: OPERATION_TYPES[start.operation.type].ledgerKind,
      partnerId: start.operation.partnerId,
      workflowId: workflowIdOf(start),
      request: start.request,
    });
    ticket?.started();
    await wait();
  } finally {
    ticket?.release();
  }
}

/** RPCs one bounded wait may make: its calls and their retries for the response time (15 s by default). */
const MAX_RPCS_PER_WAIT = 200;

/**
 * Bounds the wait so a partner never hangs or hears "maybe": at the deadline a tombstone decides (the transfer
 * committed first: the usual answer; otherwise nothing moved, ever, and the 503 says so). An abort signal alone does not
 * bound it (an RPC started after it fired waits on), so the wait also carries a gRPC deadline and races the clock.
 */
async function withinResponseTime<Result>(
  target: WorkflowTarget,
  start: WorkflowStart<Workflow>,
  call: () => Promise<Result>,
): Promise<Result | undefined> {
  const deadline = Date.now() + target.responseTimeoutMs;
  const signal = AbortSignal.timeout(target.responseTimeoutMs);
  // The SDK adds a listener per RPC (every gRPC retry) and never removes one; they go with the signal, so no leak.
  setMaxListeners(MAX_RPCS_PER_WAIT, signal);
  const running = target.client.withDeadline(deadline, () => target.client.withAbortSignal(signal, call));
  const timedOut = () => signal.aborted || Date.now() >= deadline;
  try {
    return await Promise.race([running, whenAborted(signal)]);
  } catch (error) {
    if (!timedOut() && !isOwnDeadline(error)) throw error;
    // Past the deadline the SDK's call ends on its own (its RPCs fail DEADLINE_EXCEEDED); nobody waits for it.
    running.catch(() => undefined);
    if ((await tombstoneOperation(target.pool, start.operation.id, OPERATION_TYPES[start.operation.type].ledgerKind)) === 'MOVED')
      return undefined;
    throw new DomainError(
      'operation-abandoned',
      'the operation was not confirmed in time, so it was cancelled: nothing was moved and nothing will be; it is safe to retry',
    );
  }
}

/** Rejects when the signal fires (never resolves); handled, since it fires after the race too when the call won it. */
function whenAborted(signal: AbortSignal): Promise<never> {
  const aborted = new Promise<never>((_, reject) => signal.addEventListener('abort', () => reject(signal.reason as Error), { once: true }));
  aborted.catch(() => undefined);
  return aborted;
}

/** A workflow's result that is a refusal becomes the partner's error (P432, P433, …). */
function throwIfRefused(progress: OperationProgress | undefined): void {
  const refusal = progress?.refusal;
  if (refusal)
    throw isDomainErrorKind(refusal.kind) ? new DomainError(refusal.kind, refusal.message) : new Error(`workflow refused: ${refusal.kind}`);
  if (progress?.stage === 'ABANDONED')
    throw new DomainError('operation-abandoned', 'the operation was given up on: nothing was moved; it is safe to retry');
}

async function closedWorkflowResult(target: WorkflowTarget, start: WorkflowStart<Workflow>): Promise<OperationProgress | undefined> {
  try {
    // Closed, so answered at once; bounded all the same, as every wait of a caller is.
    const deadline = Date.now() + target.responseTimeoutMs;
    return (await target.client.withDeadline(deadline, () => target.client.workflow.getHandle(workflowIdOf(start)).result())) as
      OperationProgress | undefined;
  } catch (error) {
    return decideFailedWorkflow(target, start, error);
  }
}

/** A workflow that failed, was terminated or cancelled: unless abandoned, the tombstone decides as on a timeout. */
async function decideFailedWorkflow(target: WorkflowTarget, start: WorkflowStart<Workflow>, error: unknown): Promise<undefined> {
  const domainError = domainErrorOf(error);
  if (domainError?.kind === 'operation-abandoned') throw domainError;
  if ((await tombstoneOperation(target.pool, start.operation.id, OPERATION_TYPES[start.operation.type].ledgerKind)) === 'MOVED')
    return undefined;
  throw new DomainError('operation-abandoned', 'the operation ended before any money was moved, and none will be; it is safe to retry');
}

/** The SDK's option type cannot resolve for a generic W; `WorkflowStart<W>` has checked the arguments already. */
function startOptions<W extends Workflow>(target: WorkflowTarget, start: WorkflowStart<W>): WorkflowStartOptions<W> {
  return {
    taskQueue: target.taskQueue,
    workflowId: workflowIdOf(start),
    args: start.args,
    typedSearchAttributes: start.searchAttributes,
    staticSummary: start.metadata?.staticSummary,
    staticDetails: start.metadata?.staticDetails,
    memo: requestMemo(),
    ...ID_POLICIES,
  } as unknown as WorkflowStartOptions<W>;
}

/** The starting request's id, as memo `requestId`, for the UI and the activities' log lines (request-id.interceptor). */
function requestMemo(): Record<string, string> | undefined {
  const { requestId } = currentLogContext();
  return typeof requestId === 'string' ? { requestId } : undefined;
}

function workflowIdOf(start: WorkflowStart<Workflow>): string {
  return start.contract.workflowId(start.operation.id);
}
