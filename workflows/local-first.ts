import { ActivityFailure, ApplicationFailure, TimeoutFailure, isCancellation } from '@temporalio/workflow';
import { NON_RETRYABLE_TYPES } from '../core/errors';

/**
 * A durable step as a local activity first (see DURABLE_STEP_LOCAL_ATTEMPTS); when its local
 * attempts run out on a fault a retry could still fix, the same step runs as a regular activity,
 * retried until it succeeds. A refusal, a conflict or a cancellation is the step's answer and ends
 * it as before. Running a step twice is safe: every step is idempotent and locks its record.
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

/**
 * Judged by the failure itself: the SDK hands over a local activity's last failure as it was thrown
 * (not wrapped in an ActivityFailure that says why the retries ended). A retryable failure, or a
 * timeout, can only have ended by running out of attempts.
 */
function ranOutOfAttempts(error: unknown): boolean {
  if (isCancellation(error)) return false;
  const failure = error instanceof ActivityFailure ? error.cause : error;
  if (failure instanceof TimeoutFailure) return true;
  return failure instanceof ApplicationFailure && !failure.nonRetryable && !NON_RETRYABLE_TYPES.includes(failure.type ?? '');
}
