import { ActivityFailure, ApplicationFailure } from '@temporalio/workflow';
import { BUSINESS_ERROR_TYPES } from './activity-options';

/** Fails the workflow with the business error itself, not the activity wrapper around it. */
export function businessCause(error: unknown): unknown {
  if (error instanceof ActivityFailure && error.cause instanceof ApplicationFailure) return error.cause;
  return error;
}

/** A refusal with a partner-facing reason (insufficient funds, …), as opposed to a fault of ours. */
export function isBusinessFailure(cause: unknown): cause is ApplicationFailure {
  return cause instanceof ApplicationFailure && BUSINESS_ERROR_TYPES.includes(cause.type ?? '');
}
