import { Context } from '@temporalio/activity';
import type { Workflow } from '@temporalio/common';
import type { WorkflowContract } from '../contracts';
import { DomainError } from '../core/errors';
import { OPERATION_TYPES } from '../core/operation-types';
import { UUID } from '../core/uuid';
import { recordUnknownOperation } from '../db/queries/accepted-operation.queries';
import type { ActivityDependencies } from './dependencies';

const OPERATION_WORKFLOW_TYPES: ReadonlySet<string> = new Set(Object.values(OPERATION_TYPES).map((type) => type.workflowType));

type Activity = (...args: never[]) => Promise<unknown>;

/**
 * Temporal is a door to the money like the API: whoever reaches it can have our worker run an activity with any arguments.
 * So every activity runs only for the workflow type bound here, and an operation's activities take its id first and run only
 * in that operation's own workflow; anything else is refused as `unknown-operation` before the step runs.
 */
export function boundTo<Activities extends Record<string, Activity>>(
  contract: WorkflowContract<Workflow>,
  deps: Pick<ActivityDependencies, 'pool' | 'log'>,
  activities: Activities,
): Activities {
  const bound = Object.entries(activities).map(([name, activity]) => {
    const checked = async (...args: never[]) => {
      const { info } = Context.current();
      const caller = { workflowId: info.workflowExecution?.workflowId, workflowType: info.workflowType };
      const refusal = bindingMismatch(name, contract, args, caller);
      if (refusal !== undefined) await stopUnknownOperation(deps, args[0], refusal);
      return activity(...args);
    };
    return [name, checked];
  });
  return Object.fromEntries(bound) as Activities;
}

/** Why a workflow may not run the activity, bound to the contract, with these arguments; undefined when it may. */
export function bindingMismatch(
  activity: string,
  contract: WorkflowContract<Workflow>,
  args: readonly unknown[],
  caller: { workflowId: string | undefined; workflowType: string | undefined },
): string | undefined {
  if (!OPERATION_WORKFLOW_TYPES.has(contract.workflowType)) {
    return caller.workflowType === contract.workflowType ? undefined : `${activity} runs only for ${contract.workflowType}`;
  }
  const operationId = args[0];
  // Lower case, as the API issues it: the workflow id derives from it letter for letter.
  if (typeof operationId !== 'string' || !UUID.test(operationId) || operationId !== operationId.toLowerCase())
    return `${activity} names no operation`;
  const workflowId = contract.workflowId(operationId);
  if (caller.workflowType === contract.workflowType && caller.workflowId === workflowId) return undefined;
  return `${activity} for operation ${operationId} runs only in workflow ${workflowId} (${contract.workflowType})`;
}

/** Refuses the running workflow's operation as `unknown-operation`, kept in refused_operation for reconciliation. Nothing was held. */
export async function stopUnknownOperation(
  deps: Pick<ActivityDependencies, 'pool' | 'log'>,
  operationId: unknown,
  reason: string,
): Promise<never> {
  const { info } = Context.current();
  // Empty for an activity no workflow runs (a standalone activity): no workflow id can match.
  const workflowId = info.workflowExecution?.workflowId ?? '';
  await recordUnknownOperation(deps.pool, {
    workflowId,
    runId: info.workflowExecution?.runId ?? '',
    workflowType: info.workflowType ?? '',
    operationId: typeof operationId === 'string' ? operationId : null,
    reason,
  });
  deps.log.warn(`refused workflow ${workflowId}: ${reason}`);
  throw new DomainError('unknown-operation', reason);
}
