import { Context } from '@temporalio/activity';
import type { Workflow } from '@temporalio/common';
import { DomainError } from '../core/errors';
import { recordRefusedOperation } from '../db/queries/accepted-operation.queries';
import type { WorkflowContract } from '../contracts';
import type { ActivityDependencies } from './dependencies';

/** A UUID as the API issues it and Postgres prints it: lower case. */
export const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

/**
 * Temporal is a door to the money like the API: whoever reaches it can start a workflow with any
 * input, encrypted or not. The first money-moving step (a reservation, an exchange) therefore moves
 * money only for an operation the API recorded before starting the workflow (accepted_operation),
 * run by that operation's own workflow, with an input equal to the recorded request: its database
 * function checks that before anything else. Anything else is refused as `unknown-operation`
 * before anything is held (refuseUnknownOperation).
 */
export interface AcceptedRequestCheck<Input> {
  contract: WorkflowContract<Workflow>;
  /** The operation id the workflow input names. */
  operationId: string;
  /** The workflow's input, as Temporal delivered it: trusted for nothing. */
  input: Input;
}

/**
 * Refuses the running workflow's operation as `unknown-operation`: kept in refused_operation for
 * reconciliation, and logged. Nothing was held.
 */
export async function refuseUnknownOperation(
  deps: Pick<ActivityDependencies, 'pool' | 'log'>,
  operationId: unknown,
  reason: string,
): Promise<never> {
  const { info } = Context.current();
  // Empty for an activity no workflow runs (a standalone activity): no workflow id can match.
  const workflowId = info.workflowExecution?.workflowId ?? '';
  await recordRefusedOperation(deps.pool, {
    workflowId,
    runId: info.workflowExecution?.runId ?? '',
    workflowType: info.workflowType ?? '',
    operationId: typeof operationId === 'string' ? operationId : null,
    reason,
  });
  deps.log.warn(`refused workflow ${workflowId}: ${reason}`);
  throw new DomainError('unknown-operation', reason);
}

/**
 * What acceptedRequest refuses before it reads anything: an operation id that is no UUID, or a
 * workflow that is not the operation's own (its id and type). The reason, or undefined.
 */
export function workflowMismatch(check: Pick<AcceptedRequestCheck<unknown>, 'contract' | 'operationId'>): string | undefined {
  const { info } = Context.current();
  if (typeof check.operationId !== 'string' || !UUID.test(check.operationId)) return 'the workflow names no operation id the API issues';
  const expectedWorkflowId = check.contract.workflowId(check.operationId);
  if ((info.workflowExecution?.workflowId ?? '') !== expectedWorkflowId || info.workflowType !== check.contract.workflowType) {
    return `operation ${check.operationId} runs only as workflow ${expectedWorkflowId} (${check.contract.workflowType})`;
  }
  return undefined;
}
