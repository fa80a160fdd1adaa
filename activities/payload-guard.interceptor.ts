import { ApplicationFailure } from '@temporalio/common';
import type { ActivityExecuteInput, ActivityInboundCallsInterceptor, Next } from '@temporalio/worker';
import { unreadablePayloadReason } from '../core/unreadable-payload';

/**
 * An activity whose arguments the worker's codec refused (core/unreadable-payload.ts) does nothing.
 * Its attempt fails retryably: a workflow that is not ours schedules it again to no effect, but
 * ours gets its stored input delivered afresh. The 60-minute chaos run (issue 21, seed 1235351395)
 * saw one of our own inputs refused once, on a worker resumed from SIGSTOP as it took the task; the
 * failure was final then, and failed a SEPA transfer whose money was already at the bank (its hold
 * kept, for an operator). A refusal that never clears stays visible as the activity's last failure.
 */
export class PayloadGuardInterceptor implements ActivityInboundCallsInterceptor {
  async execute(input: ActivityExecuteInput, next: Next<ActivityInboundCallsInterceptor, 'execute'>): Promise<unknown> {
    const reason = unreadablePayloadReason(input.args);
    if (reason !== undefined) {
      throw ApplicationFailure.create({
        type: 'payload-refused',
        message: `the activity's input was refused (${reason}); retried`,
        nonRetryable: false,
      });
    }
    return next(input);
  }
}
