import { ActivityFailure, ApplicationFailure, TimeoutFailure, isCancellation } from '@temporalio/workflow';
import { NON_RETRYABLE_TYPES } from '../core/errors';

/**
 * A durable step as a local activity first; when its attempts run out on a fault a retry could fix, it runs again as a
 * regular activity (steps are idempotent). A refusal, a conflict or a cancellation is the step's answer.
 */
export function localFirst<Args extends unknown[], Result>(
  local: (...args: Args) => Promise<Result>,
  regular: (...args: Args) => Promise<Result>,
): (...args: Args) => Promise<Result> {
  // One promise more than the step's own, not an async function's several (see payload-guard.interceptor.ts).
  return (...args) =>
    local(...args).catch((error: unknown) => {
      if (!ranOutOfAttempts(error)) throw error;
      return regular(...args);
    });
}

/** The SDK hands over a local activity's last failure unwrapped: a retryable one, or a timeout, ran out of attempts. */
function ranOutOfAttempts(error: unknown): boolean {
  if (isCancellation(error)) return false;
  const failure = error instanceof ActivityFailure ? error.cause : error;
  if (failure instanceof TimeoutFailure) return true;
  return failure instanceof ApplicationFailure && !failure.nonRetryable && !NON_RETRYABLE_TYPES.includes(failure.type ?? '');
}
