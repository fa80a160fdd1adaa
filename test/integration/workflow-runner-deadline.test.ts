// Among the integration tests only because the unit tier imports no Temporal client (test/unit/test-tiers.test.ts); it needs no stack.
import { WorkflowUpdateRPCTimeoutOrCancelledError } from '@temporalio/client';
import { isOwnDeadline } from '../../operations/temporal/own-deadline';

/** A gRPC service error as @grpc/grpc-js makes them: a code, details and metadata. */
function grpcError(code: number): Error {
  return Object.assign(new Error(`${code} grpc`), { code, details: 'Deadline exceeded after 14.998s', metadata: {} });
}

describe('the wait for a reservation knows its own deadline', () => {
  // Chaos run seed 21: gRPC's timer fired 2 ms before the wait's clock did, and the caller got a 500.
  it('takes an Update-With-Start ended by the deadline, a bare gRPC DEADLINE_EXCEEDED, or one as the cause, as time up', () => {
    expect(isOwnDeadline(new WorkflowUpdateRPCTimeoutOrCancelledError('Deadline exceeded after 14.998s', { cause: grpcError(4) }))).toBe(
      true,
    );
    expect(isOwnDeadline(grpcError(4))).toBe(true);
    expect(isOwnDeadline(Object.assign(new Error('wrapped'), { cause: grpcError(4) }))).toBe(true);
  });

  it('lets any other failure through as itself', () => {
    expect(isOwnDeadline(grpcError(14))).toBe(false);
    expect(isOwnDeadline(new Error('Deadline exceeded'))).toBe(false);
    expect(isOwnDeadline(undefined)).toBe(false);
  });
});
