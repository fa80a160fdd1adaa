import { WorkflowUpdateRPCTimeoutOrCancelledError, isGrpcDeadlineError } from '@temporalio/client';

/**
 * The call ended on the deadline the caller's wait set: gRPC's timer can fire a few milliseconds
 * before our clock reaches the same instant (a chaos run answered 500 after 14.998 s of a 15 s
 * wait, issue 21, seed 21), and no other deadline is in scope of that wait.
 */
export function isOwnDeadline(error: unknown): boolean {
  return error instanceof WorkflowUpdateRPCTimeoutOrCancelledError || isGrpcDeadlineError(error);
}
