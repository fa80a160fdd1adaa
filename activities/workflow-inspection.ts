import type { Client } from '@temporalio/client';
import { WorkflowNotFoundError } from '@temporalio/common';

/** What Temporal knows about a workflow's latest run, for reconciliation and the operator CLI; not existing is a state too. */
export type WorkflowState =
  | {
      workflowId: string;
      found: true;
      /** RUNNING, COMPLETED, FAILED, CANCELLED, TERMINATED, CONTINUED_AS_NEW, TIMED_OUT, … */
      status: string;
      type: string;
      runId: string;
      taskQueue: string;
      startTime: string;
      closeTime: string | null;
      historyLength: number;
      searchAttributes: Record<string, unknown>;
    }
  | { workflowId: string; found: false; reason: 'not-found' | 'unreachable'; message: string };

export function isRunning(state: WorkflowState): boolean {
  return state.found && state.status === 'RUNNING';
}

/** "Not found" is an answer; any other failure is thrown, unless `unreachableAsState` asks for it as a state instead. */
export async function describeWorkflow(
  client: Client,
  workflowId: string,
  options: { unreachableAsState?: boolean } = {},
): Promise<WorkflowState> {
  try {
    const description = await client.workflow.getHandle(workflowId).describe();
    return {
      workflowId,
      found: true,
      status: description.status.name,
      type: description.type,
      runId: description.runId,
      taskQueue: description.taskQueue,
      startTime: description.startTime.toISOString(),
      closeTime: description.closeTime?.toISOString() ?? null,
      historyLength: description.historyLength,
      searchAttributes: Object.fromEntries(description.typedSearchAttributes.getAll().map(({ key, value }) => [key.name, value])),
    };
  } catch (error) {
    if (isNotFound(error)) return { workflowId, found: false, reason: 'not-found', message: 'Temporal has no workflow with this id' };
    if (!options.unreachableAsState) throw error;
    return { workflowId, found: false, reason: 'unreachable', message: `Temporal could not be asked: ${messageOf(error)}` };
  }
}

function isNotFound(error: unknown): boolean {
  if (error instanceof WorkflowNotFoundError) return true;
  // A client over the worker's NativeConnection may surface the gRPC status (5, NOT_FOUND) instead.
  const { code, name } = error as { code?: unknown; name?: unknown };
  return code === 5 || name === 'WorkflowNotFoundError';
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
