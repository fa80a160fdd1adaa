import { WithStartWorkflowOperation, WorkflowExecutionAlreadyStartedError } from '@temporalio/client';
import type { Client } from '@temporalio/client';
import type { SearchAttributePair } from '@temporalio/common';
import type { Workflow } from '@temporalio/common';
import { DomainError } from '../../core/errors';
import { fundsReservedUpdate } from '../../workflows/definitions';
import { rethrowAsBusinessError } from './temporal-errors';

/** Where to run workflows, and how long a caller may wait for the answer. */
export interface WorkflowTarget {
  client: Client;
  taskQueue: string;
  /** Past this the caller gets 503 P503; the operation goes on and a retry with the same key joins it. */
  responseTimeoutMs: number;
}

export interface WorkflowStart {
  workflowType: string;
  workflowId: string;
  args: unknown[];
  searchAttributes: SearchAttributePair[];
}

/**
 * The workflow id is the business key. A running workflow with the id is joined (USE_EXISTING);
 * a closed one is never started again (REJECT_DUPLICATE): its outcome is read instead.
 */
const ID_POLICIES = { workflowIdConflictPolicy: 'USE_EXISTING', workflowIdReusePolicy: 'REJECT_DUPLICATE' } as const;

/** Starts (or joins) a workflow and waits for its result. */
export async function executeWorkflow<Result>(target: WorkflowTarget, start: WorkflowStart): Promise<Result> {
  const { client, taskQueue } = target;
  try {
    return await withinResponseTime(target, () =>
      client.workflow.execute<Workflow>(start.workflowType, {
        taskQueue,
        workflowId: start.workflowId,
        args: start.args,
        typedSearchAttributes: start.searchAttributes,
        ...ID_POLICIES,
      }) as Promise<Result>,
    );
  } catch (error) {
    if (error instanceof WorkflowExecutionAlreadyStartedError) return closedWorkflowResult<Result>(client, start.workflowId);
    return rethrowAsBusinessError(error);
  }
}

/**
 * Starts (or joins) a workflow and returns as soon as it has reserved the funds
 * (Update-With-Start on the fundsReserved update); the workflow goes on without the caller.
 */
export async function startAndAwaitReservation(target: WorkflowTarget, start: WorkflowStart): Promise<{ id: string }> {
  const { client, taskQueue } = target;
  const operation = new WithStartWorkflowOperation<Workflow>(start.workflowType, {
    taskQueue,
    workflowId: start.workflowId,
    args: start.args,
    typedSearchAttributes: start.searchAttributes,
    ...ID_POLICIES,
  });
  try {
    return await withinResponseTime(target, () =>
      client.workflow.executeUpdateWithStart(fundsReservedUpdate, { startWorkflowOperation: operation }),
    );
  } catch (error) {
    if (error instanceof WorkflowExecutionAlreadyStartedError) {
      // Closed already: it reserved if and only if it did not fail.
      await closedWorkflowResult(client, start.workflowId);
      return { id: start.workflowId };
    }
    return rethrowAsBusinessError(error);
  }
}

/** Bounds the wait (no worker polling, a stuck reservation) so a partner never hangs. */
async function withinResponseTime<Result>(target: WorkflowTarget, call: () => Promise<Result>): Promise<Result> {
  const signal = AbortSignal.timeout(target.responseTimeoutMs);
  try {
    return await target.client.withAbortSignal(signal, call);
  } catch (error) {
    if (signal.aborted) {
      throw new DomainError(
        'service-unavailable',
        'the operation was not confirmed in time; retry with the same Idempotency-Key to learn its outcome',
      );
    }
    throw error;
  }
}

async function closedWorkflowResult<Result>(client: Client, workflowId: string): Promise<Result> {
  try {
    return (await client.workflow.getHandle(workflowId).result()) as Result;
  } catch (error) {
    return rethrowAsBusinessError(error);
  }
}
