import { ApplicationFailure, log } from '@temporalio/workflow';
import type { WorkflowInterceptorsFactory } from '@temporalio/workflow';
import { isUnreadablePayload, unreadablePayloadReason } from '../core/unreadable-payload';

/** The failure type of a workflow whose own start input was refused. */
export const PAYLOAD_REFUSED = 'payload-refused';

/**
 * A payload the codec refused (not encrypted with our key: core/unreadable-payload.ts), registered first: a start input
 * fails the workflow before its code runs; a signal is ignored (an outsider cannot jam a workflow); an update or query
 * is refused; an activity's result fails the workflow task, loudly, so nothing acts on it.
 */
export const interceptors: WorkflowInterceptorsFactory = () => ({
  // Not async: the SDK records a stack trace for every promise workflow code creates (docs/benchmarks.md).
  inbound: [
    {
      execute(input, next) {
        const reason = unreadablePayloadReason(input.args);
        if (reason !== undefined) {
          return Promise.reject(
            ApplicationFailure.create({
              type: PAYLOAD_REFUSED,
              message: `the workflow's input was refused (${reason}); nothing was done. Start operations through the API`,
              nonRetryable: true,
            }),
          );
        }
        return next(input);
      },
      handleSignal(input, next) {
        const reason = unreadablePayloadReason(input.args);
        if (reason === undefined) return next(input);
        log.warn(`ignored signal ${input.signalName}: its input was refused (${reason})`);
        return Promise.resolve();
      },
      validateUpdate(input, next) {
        const reason = unreadablePayloadReason(input.args);
        if (reason !== undefined) throw refusedUpdate(input.name, reason);
        next(input);
      },
      handleUpdate(input, next) {
        const reason = unreadablePayloadReason(input.args);
        if (reason !== undefined) return Promise.reject(refusedUpdate(input.name, reason));
        return next(input);
      },
      handleQuery(input, next) {
        const reason = unreadablePayloadReason(input.args);
        if (reason !== undefined) return Promise.reject(new Error(`query ${input.queryName} refused: its input was refused (${reason})`));
        return next(input);
      },
    },
  ],
  outbound: [
    {
      scheduleActivity(input, next) {
        return next(input).then((result) => acceptedResult(input.activityType, result));
      },
      scheduleLocalActivity(input, next) {
        return next(input).then((result) => acceptedResult(input.activityType, result));
      },
    },
  ],
});

function refusedUpdate(name: string, reason: string): ApplicationFailure {
  return ApplicationFailure.create({
    type: PAYLOAD_REFUSED,
    message: `update ${name} refused: its input was refused (${reason}); operators use npm run ops`,
    nonRetryable: true,
  });
}

/** A plain Error fails the workflow task (retried, visible), never the workflow: nothing acts on the result. */
function acceptedResult(activityType: string, result: unknown): unknown {
  if (isUnreadablePayload(result)) throw new Error(`the result of ${activityType} was refused: ${result.$refusedPayload}`);
  return result;
}
