import { ApplicationFailure } from '@temporalio/common';
import type { ActivityExecuteInput, ActivityInboundCallsInterceptor, Next } from '@temporalio/worker';
import { refusedPayloadReason } from '../core/refused-payload';

/**
 * An activity scheduled with arguments the worker's codec refused (not encrypted with our key:
 * core/refused-payload.ts), i.e. by a workflow worker that is not ours: it does nothing, and no
 * retry changes that.
 */
export class PayloadGuardInterceptor implements ActivityInboundCallsInterceptor {
  async execute(input: ActivityExecuteInput, next: Next<ActivityInboundCallsInterceptor, 'execute'>): Promise<unknown> {
    const reason = refusedPayloadReason(input.args);
    if (reason !== undefined) {
      throw ApplicationFailure.create({
        type: 'payload-refused',
        message: `the activity's input was refused (${reason})`,
        nonRetryable: true,
      });
    }
    return next(input);
  }
}
