import { ApplicationFailure } from '@temporalio/common';
import { DomainError } from '../core/errors';

/**
 * Business errors are final: retrying "insufficient funds" cannot help. They leave the activity
 * as non-retryable failures whose type is the error kind, so the API can map them back.
 * Anything else stays retryable (a lost connection, a deadlock).
 */
export async function withBusinessFailures<T>(work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (error) {
    if (error instanceof DomainError) {
      throw ApplicationFailure.create({ type: error.kind, message: error.detail ?? error.kind, nonRetryable: true });
    }
    throw error;
  }
}
