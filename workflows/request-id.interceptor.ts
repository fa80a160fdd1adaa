import { defaultPayloadConverter, workflowInfo } from '@temporalio/workflow';
import type { WorkflowInterceptorsFactory } from '@temporalio/workflow';

/** Carries the request id to every activity (activities/request-id.interceptor.ts); headers are not encoded. */
export const REQUEST_ID_HEADER = 'requestId';

/** Set by the API on start (operations/temporal/workflow-runner.ts); absent for scheduled runs. */
function requestId(): string | undefined {
  const value = workflowInfo().memo?.requestId;
  return typeof value === 'string' ? value : undefined;
}

/** The starting request's id on the workflow's and its activities' log lines: metadata from the memo, no command. */
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
