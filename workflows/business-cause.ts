import { ActivityFailure, ApplicationFailure } from '@temporalio/workflow';

/** Fails the workflow with the business error itself, not the activity wrapper around it. */
export function businessCause(error: unknown): unknown {
  if (error instanceof ActivityFailure && error.cause instanceof ApplicationFailure) return error.cause;
  return error;
}
