import { WorkflowUpdateRPCTimeoutOrCancelledError, isGrpcDeadlineError } from '@temporalio/client';

/** The call ended on the wait's own deadline: gRPC's timer can fire a few milliseconds before our clock gets there. */
export function isOwnDeadline(error: unknown): boolean {
  return error instanceof WorkflowUpdateRPCTimeoutOrCancelledError || isGrpcDeadlineError(error);
}
