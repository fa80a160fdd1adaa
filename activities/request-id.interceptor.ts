import { defaultPayloadConverter } from '@temporalio/common';
import type { Headers } from '@temporalio/common';
import type { Context } from '@temporalio/activity';
import type { ActivityInterceptors } from '@temporalio/worker';
import { withLogContext } from '../core/logger';

/** Must match workflows/request-id.interceptor.ts, which sets it. */
const REQUEST_ID_HEADER = 'requestId';

/** Every line an activity logs names its workflow and the API request (passed in the activity's headers) it serves. */
export function requestIdInterceptors(context: Context): ActivityInterceptors {
  let requestId: string | undefined;
  return {
    inbound: {
      async execute(input, next) {
        requestId = requestIdOf(input.headers);
        const workflowId = context.info.workflowExecution?.workflowId;
        const fields = {
          ...(workflowId ? { workflowId } : {}),
          activityType: context.info.activityType,
          ...(requestId ? { requestId } : {}),
        };
        return withLogContext(fields, () => next(input));
      },
    },
    outbound: {
      getLogAttributes(attributes, next) {
        return next(requestId ? { ...attributes, requestId } : attributes);
      },
    },
  };
}

function requestIdOf(headers: Headers): string | undefined {
  const payload = headers[REQUEST_ID_HEADER];
  if (!payload) return undefined;
  try {
    const value = defaultPayloadConverter.fromPayload(payload);
    return typeof value === 'string' ? value : undefined;
  } catch {
    return undefined; // not ours to fail an activity over
  }
}
