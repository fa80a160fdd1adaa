import { ApplicationFailure, CancelledFailure } from '@temporalio/common';
import { DomainError, isDomainErrorKind } from '../../core/errors';

/** The domain error behind a Temporal failure; anything else stays unmapped (the middleware answers P500 or P503). */
export function domainErrorOf(error: unknown): DomainError | undefined {
  let current: unknown = error;
  for (let depth = 0; depth < 10 && current instanceof Error; depth += 1) {
    if (current instanceof ApplicationFailure && isDomainErrorKind(current.type)) {
      return new DomainError(current.type, current.message);
    }
    // Cancelled workflows released whatever they held: cancelling after the hand-off does not end one.
    if (current instanceof CancelledFailure) {
      return new DomainError(
        'operation-abandoned',
        'the operation was cancelled before any money left: nothing was moved; it is safe to retry',
      );
    }
    current = (current as { cause?: unknown }).cause;
  }
  return undefined;
}
