import type { ActivityOptions } from '@temporalio/workflow';
import { NON_RETRYABLE_TYPES, REFUSAL_KINDS } from '../core/errors';

/** Refusals end an operation as a result (UNSUCCESSFUL), not as a failure: see core/errors.ts. */
export const BUSINESS_ERROR_TYPES: readonly string[] = REFUSAL_KINDS;

/** Definite answers from outside: the money did not leave, so the reservation may be released. */
export { DEFINITE_FAILURE_TYPES } from '../core/errors';

/** Listed on every retry policy too, so Temporal stops at once even if a failure's flag is lost. */
const NOT_RETRYABLE = [...NON_RETRYABLE_TYPES];

/**
 * Steps a caller waits on (reservation, exchange): retried with backoff for transient faults
 * (deadlocks, failovers), but bounded, so a long outage ends in an answer.
 */
export const BOUNDED_DATABASE_STEP: ActivityOptions = {
  startToCloseTimeout: '30 seconds',
  retry: {
    initialInterval: '500 milliseconds',
    backoffCoefficient: 2,
    maximumInterval: '30 seconds',
    maximumAttempts: 20,
    nonRetryableErrorTypes: NOT_RETRYABLE,
  },
};

/**
 * Everything after the reservation. Each step is idempotent, so it is retried until it succeeds:
 * an outage pauses the operation (operators see the pending activity), it never abandons money
 * half-way.
 */
export const DURABLE_DATABASE_STEP: ActivityOptions = {
  startToCloseTimeout: '30 seconds',
  retry: { initialInterval: '500 milliseconds', backoffCoefficient: 2, maximumInterval: '1 minute', nonRetryableErrorTypes: NOT_RETRYABLE },
};

/** Calls to a chain node or a bank, idempotent on the operation id: retried until answered. */
export const EXTERNAL_CALL: ActivityOptions = {
  startToCloseTimeout: '1 minute',
  retry: { initialInterval: '1 second', backoffCoefficient: 2, maximumInterval: '2 minutes', nonRetryableErrorTypes: NOT_RETRYABLE },
};

/**
 * Waiting for a confirmation or a bank answer: the activity fails "not yet" until there is one.
 * No overall deadline: giving up would not bring back money that may already have left.
 */
export const POLL_UNTIL_FINAL: ActivityOptions = {
  startToCloseTimeout: '30 seconds',
  retry: {
    initialInterval: '200 milliseconds',
    backoffCoefficient: 1.5,
    maximumInterval: '30 seconds',
    nonRetryableErrorTypes: NOT_RETRYABLE,
  },
};
