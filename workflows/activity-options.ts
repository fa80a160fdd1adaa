import type { ActivityOptions } from '@temporalio/workflow';

/** The error kinds that no retry can fix; listed so Temporal stops at once even if a flag is lost. */
export const BUSINESS_ERROR_TYPES = [
  'invalid-request',
  'invalid-exchange-lock',
  'insufficient-funds',
  'invalid-currency',
  'invalid-user',
  'partner-not-found',
];

/** Database steps: short, retried with backoff for transient faults (deadlocks, failovers). */
export const DATABASE_STEP: ActivityOptions = {
  startToCloseTimeout: '30 seconds',
  retry: {
    initialInterval: '500 milliseconds',
    backoffCoefficient: 2,
    maximumInterval: '30 seconds',
    maximumAttempts: 20,
    nonRetryableErrorTypes: BUSINESS_ERROR_TYPES,
  },
};

/** Calls to a chain node or a bank: slower, retried longer. */
export const EXTERNAL_CALL: ActivityOptions = {
  startToCloseTimeout: '1 minute',
  retry: {
    initialInterval: '1 second',
    backoffCoefficient: 2,
    maximumInterval: '1 minute',
    maximumAttempts: 30,
    nonRetryableErrorTypes: [...BUSINESS_ERROR_TYPES, 'broadcast-rejected', 'transaction-failed'],
  },
};

/** Waiting for a confirmation or a bank answer: the activity fails "not yet" until there is one. */
export const POLL_UNTIL_FINAL: ActivityOptions = {
  startToCloseTimeout: '30 seconds',
  scheduleToCloseTimeout: '2 hours',
  retry: {
    initialInterval: '200 milliseconds',
    backoffCoefficient: 1.5,
    maximumInterval: '10 seconds',
    nonRetryableErrorTypes: [...BUSINESS_ERROR_TYPES, 'transaction-failed', 'unknown-bank-reference'],
  },
};
