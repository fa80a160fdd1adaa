import { Context } from '@temporalio/activity';
import type { EntityManager } from '@mikro-orm/postgresql';
import type { Workflow } from '@temporalio/common';
import { canonicalJson } from '../core/canonical-json';
import { DomainError } from '../core/errors';
import { lockOperationAndFindAccepted, recordRefusedOperation } from '../db/queries/accepted-operation.queries';
import type { AcceptedOperationKind } from '../db/queries/accepted-operation.queries';
import type { WorkflowContract } from '../contracts';
import type { ActivityDependencies } from './dependencies';

/** A UUID as the API issues it and Postgres prints it: lower case. */
export const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

export interface AcceptedRequestCheck<Input> {
  kind: AcceptedOperationKind;
  contract: WorkflowContract<Workflow>;
  /** The operation id the workflow input names. */
  operationId: string;
  /** The workflow's input, as Temporal delivered it: trusted for nothing. */
  input: Input;
}

/**
 * Temporal is a door to the money like the API: whoever reaches it can start a workflow with any
 * input, encrypted or not. The first money-moving step therefore moves money only for an
 * operation the API recorded before starting the workflow (accepted_operation), run by that
 * operation's own workflow, with an input equal to the recorded request; it then works with the
 * database's copy. Anything else is refused as `unknown-operation` before anything is held, kept
 * in refused_operation for reconciliation, and logged. Runs in the caller's transaction, and takes
 * the operation's lock there (lockOperation) in the same statement: from its return on, the
 * operation's other attempts wait.
 */
export async function acceptedRequest<Input>(
  em: EntityManager,
  deps: Pick<ActivityDependencies, 'pool' | 'log'>,
  check: AcceptedRequestCheck<Input>,
): Promise<Input> {
  const refuse = (reason: string): Promise<never> => refuseUnknownOperation(deps, check.operationId, reason);
  const mismatch = workflowMismatch(check);
  if (mismatch !== undefined) return refuse(mismatch);
  const expectedWorkflowId = check.contract.workflowId(check.operationId);
  const accepted = await lockOperationAndFindAccepted(em, check.operationId);
  if (!accepted) return refuse(`the API accepted no operation ${check.operationId}`);
  if (accepted.kind !== check.kind || accepted.workflowId !== expectedWorkflowId) {
    return refuse(`operation ${check.operationId} is a ${accepted.kind}, not a ${check.kind}`);
  }
  if (canonicalJson(accepted.request) !== canonicalJson(check.input)) {
    return refuse(`the workflow input differs from the request the API accepted for operation ${check.operationId}`);
  }
  return accepted.request as Input;
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
