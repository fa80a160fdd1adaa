import { defaultPayloadConverter, workflowInfo } from '@temporalio/workflow';
import type { WorkflowInterceptorsFactory } from '@temporalio/workflow';

/**
 * The header that carries the request id to every activity the workflow schedules (read by
 * activities/request-id.interceptor.ts). Headers are plain payloads: no codec encodes them, and
 * a request id is no personal data.
 */
export const REQUEST_ID_HEADER = 'requestId';

/** Set by the API on start (operations/temporal/workflow-runner.ts); absent for scheduled runs. */
function requestId(): string | undefined {
  const value = workflowInfo().memo?.requestId;
  return typeof value === 'string' ? value : undefined;
}

/**
 * Registered on the worker (worker/worker.ts: WORKFLOW_INTERCEPTOR_MODULES): the request that
 * started the workflow stays on its log lines and its activities' log lines. Only metadata: what
 * a replay recomputes from the memo, never part of the history's commands.
 */
export const interceptors: WorkflowInterceptorsFactory = () => ({
  outbound: [
    {
      scheduleActivity(input, next) {
        const id = requestId();
        return next(id ? { ...input, headers: { ...input.headers, [REQUEST_ID_HEADER]: defaultPayloadConverter.toPayload(id) } } : input);
      },
      scheduleLocalActivity(input, next) {
        const id = requestId();
        return next(id ? { ...input, headers: { ...input.headers, [REQUEST_ID_HEADER]: defaultPayloadConverter.toPayload(id) } } : input);
      },
      getLogAttributes(input, next) {
        const id = requestId();
        return next(id ? { ...input, requestId: id } : input);
      },
    },
  ],
});
