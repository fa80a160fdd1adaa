import type { ActivityOptions, LocalActivityOptions } from '@temporalio/workflow';
import { ANSWER_POLLING } from '../contracts';
import { NON_RETRYABLE_TYPES, REFUSAL_KINDS } from '../core/errors';

/** Refusals end an operation as a result (UNSUCCESSFUL), not as a failure: see core/errors.ts. */
export const REFUSAL_TYPES: readonly string[] = REFUSAL_KINDS;

/** Definite answers from outside: the money did not leave, so the reservation may be released. */
export { DEFINITE_FAILURE_TYPES } from '../core/errors';

/** Listed on every retry policy too, so Temporal stops at once even if a failure's flag is lost. */
const NOT_RETRYABLE = [...NON_RETRYABLE_TYPES];

/**
 * Steps a caller waits on (reservation, exchange): one short transaction as a local activity (no task-queue round trip).
 * Safe because each is idempotent and serialised per operation (a re-run after a crash, or an overlapping attempt, changes
 * nothing); bounded at 20 attempts, then abandoned by tombstone (the API's own deadline bounds the caller's wait across a
 * worker restart, which restarts the count); a cancellation lands between tasks, and the abandon decides by the database.
 */
export const BOUNDED_DATABASE_STEP: LocalActivityOptions = {
  startToCloseTimeout: '30 seconds',
  localRetryThreshold: '5 seconds',
  retry: {
    initialInterval: '500 milliseconds',
    backoffCoefficient: 2,
    maximumInterval: '30 seconds',
    maximumAttempts: 20,
    nonRetryableErrorTypes: NOT_RETRYABLE,
  },
};

/**
 * After the reservation: idempotent, so retried until it succeeds (an outage pauses, never abandons money half-way). For
 * rare paths, and for the first step after the reservation, so the task carrying the caller's answer completes at once.
 */
export const DURABLE_DATABASE_STEP: ActivityOptions = {
  startToCloseTimeout: '30 seconds',
  retry: { initialInterval: '500 milliseconds', backoffCoefficient: 2, maximumInterval: '1 minute', nonRetryableErrorTypes: NOT_RETRYABLE },
};

/**
 * The fast path of the durable steps every payment takes: a few local attempts, then a DURABLE_DATABASE_STEP (localFirst).
 * Durable local retries would add a timer per retry to the history and hide the failure from operators.
 */
export const DURABLE_STEP_LOCAL_ATTEMPTS: LocalActivityOptions = {
  startToCloseTimeout: '30 seconds',
  retry: { initialInterval: '500 milliseconds', backoffCoefficient: 2, maximumAttempts: 3, nonRetryableErrorTypes: NOT_RETRYABLE },
};

/** Calls to a chain node or a bank, idempotent on the operation id: retried until answered. */
export const EXTERNAL_CALL: ActivityOptions = {
  startToCloseTimeout: '1 minute',
  retry: { initialInterval: '1 second', backoffCoefficient: 2, maximumInterval: '2 minutes', nonRetryableErrorTypes: NOT_RETRYABLE },
};

/**
 * One polling window (activities/answer-polling.ts), heartbeating; PENDING when nothing came. Retried without limit:
 * giving up would not bring back money that may already have left.
 */
export const AWAIT_ANSWER: ActivityOptions = {
  // The window, and room for a slow last ask.
  startToCloseTimeout: ANSWER_POLLING.windowMs + 60_000,
  heartbeatTimeout: '30 seconds',
  retry: { initialInterval: '1 second', backoffCoefficient: 2, maximumInterval: '1 minute', nonRetryableErrorTypes: NOT_RETRYABLE },
};

/** The doubling wait between polling windows; at the longest (ten windows, ~20 minutes) the workflow waits patiently. */
export const ANSWER_WAIT = { firstMs: 1_000, longestMs: 15 * 60_000 } as const;

/**
 * After the polling phase: one activity failing "not yet" until answered, its retry policy the poll loop. Retries add
 * nothing to the history, so a wait of weeks stays under Temporal's history limit. No deadline, as above.
 */
export const PATIENT_AWAIT_ANSWER: ActivityOptions = {
  startToCloseTimeout: '1 minute',
  retry: { initialInterval: '1 minute', backoffCoefficient: 2, maximumInterval: '15 minutes', nonRetryableErrorTypes: NOT_RETRYABLE },
};
