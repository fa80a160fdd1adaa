import { ApplicationFailure } from '@temporalio/common';
import { DomainError } from '../core/errors';

/**
 * Business errors are final: retrying "insufficient funds" cannot help. They leave the activity
 * as non-retryable failures whose type is the error kind, so the API can map them back.
 * Data the database refuses to store (SQLSTATE class 22: bad text, numeric overflow) is final too:
 * the same input fails the same way every time. Anything else stays retryable (a lost
 * connection, a deadlock). Messages never carry the SQL or its values (personal data).
 */
export async function withBusinessFailures<T>(work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (error) {
    if (error instanceof DomainError) {
      throw ApplicationFailure.create({ type: error.kind, message: error.detail ?? error.kind, nonRetryable: true });
    }
    const sqlState = sqlStateOf(error);
    if (sqlState?.startsWith('22')) {
      throw ApplicationFailure.create({
        type: 'invalid-request',
        message: `the database refused the operation's data (SQLSTATE ${sqlState})`,
        nonRetryable: true,
      });
    }
    throw error;
  }
}

/** The SQLSTATE of a Postgres error, whether pg's own or wrapped by MikroORM. */
export function sqlStateOf(error: unknown): string | undefined {
  let current: unknown = error;
  for (let depth = 0; depth < 5 && typeof current === 'object' && current !== null; depth += 1) {
    const { code, sqlState } = current as { code?: unknown; sqlState?: unknown };
    if (typeof sqlState === 'string' && /^[0-9A-Z]{5}$/.test(sqlState)) return sqlState;
    if (typeof code === 'string' && /^[0-9A-Z]{5}$/.test(code)) return code;
    current = (current as { cause?: unknown; previous?: unknown }).previous ?? (current as { cause?: unknown }).cause;
  }
  return undefined;
}
