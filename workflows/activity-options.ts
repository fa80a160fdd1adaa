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
 * Steps a caller waits on (reservation, exchange): one short database transaction, run as a local
 * activity (in the workflow's own task: no task-queue round trip, its result a marker in the
 * history). That keeps their guarantees because:
 * - each is idempotent and serialised per operation (lockOperation; the stored record or the
 *   tombstone decides), so the re-run a local activity gets after a worker crash (on the next
 *   workflow task), or an attempt overlapping one that timed out, changes nothing;
 * - still bounded: 20 attempts, then the workflow abandons it (tombstone) and answers. Backoffs
 *   below localRetryThreshold wait in the worker, longer ones on a durable timer that carries the
 *   attempt count; a worker restart before that starts the count again, and the API's own
 *   deadline (its tombstone) bounds what the caller waits;
 * - a cancellation reaches it only between workflow tasks; the abandon that follows decides by
 *   the database, as it does after a regular activity.
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
 * Everything after the reservation. Each step is idempotent, so it is retried until it succeeds:
 * an outage pauses the operation (operators see the pending activity), it never abandons money
 * half-way. Used as is for the steps on rare paths (abandon, release, reject, travel-rule data),
 * and for checkTravelRule, the first step after the reservation: as a regular activity it lets
 * the workflow task that carries the caller's answer complete at once (a local step would hold it).
 */
export const DURABLE_DATABASE_STEP: ActivityOptions = {
  startToCloseTimeout: '30 seconds',
  retry: { initialInterval: '500 milliseconds', backoffCoefficient: 2, maximumInterval: '1 minute', nonRetryableErrorTypes: NOT_RETRYABLE },
};

/**
 * The fast path of the durable steps every payment takes (marking the hand-off of a withdrawal,
 * settling): a few local attempts, then, if a fault outlasts them, the same idempotent step as a
 * DURABLE_DATABASE_STEP (see localFirst). Durable local retries would grow the history with a
 * timer per retry and hide the failure from operators; the regular activity does neither.
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
 * Asking the chain or the bank for its answer: one activity polls with backoff for up to a window
 * (activities/answer-polling.ts), heartbeating, and answers PENDING if nothing came; "not yet" is
 * a result, not a failure. The heartbeat timeout notices a dead worker within half a minute; a
 * retry resumes the polling from the last heartbeat. Retried without limit: giving up would not
 * bring back money that may already have left.
 */
export const AWAIT_ANSWER: ActivityOptions = {
  // The window, and room for a slow last ask.
  startToCloseTimeout: ANSWER_POLLING.windowMs + 60_000,
  heartbeatTimeout: '30 seconds',
  retry: { initialInterval: '1 second', backoffCoefficient: 2, maximumInterval: '1 minute', nonRetryableErrorTypes: NOT_RETRYABLE },
};

/**
 * Between two polling windows without an answer the workflow waits on a durable timer, doubling
 * from the first wait; once the next wait would reach the longest, the polling phase is over
 * (ten windows, about twenty minutes) and the workflow waits patiently (PATIENT_AWAIT_ANSWER).
 */
export const ANSWER_WAIT = { firstMs: 1_000, longestMs: 15 * 60_000 } as const;

/**
 * A payment the chain or the bank has not answered after the polling phase: one activity that
 * fails "not yet" until there is an answer, its retry policy the poll loop. Retries add nothing
 * to the history, so a wait of weeks cannot reach Temporal's history limit (the polling phase
 * adds about 11 events a window). No deadline: giving up would not bring back money that may
 * already have left.
 */
export const PATIENT_AWAIT_ANSWER: ActivityOptions = {
  startToCloseTimeout: '1 minute',
  retry: { initialInterval: '1 minute', backoffCoefficient: 2, maximumInterval: '15 minutes', nonRetryableErrorTypes: NOT_RETRYABLE },
};
