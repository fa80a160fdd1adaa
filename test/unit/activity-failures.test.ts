import { ApplicationFailure } from '@temporalio/common';
import { toActivityFailure } from '../../activities/domain-error.interceptor';
import { DomainError } from '../../core/errors';

/** What MikroORM and knex make of a pg error: the statement and its values prefixed to the message, pg's error kept as `previous`. */
function wrappedDatabaseError(code: string, constraint?: string): Error {
  const sql = "insert into crypto_withdrawal (name, iban) values ('Anna Nowak', 'DE89370400440532013000')";
  const pgError = Object.assign(new Error(`${sql} - duplicate key value violates unique constraint`), { code, constraint });
  return Object.assign(new Error(`${sql} - duplicate key value`), { code, previous: pgError, stack: `Error: ${sql}\n    at somewhere` });
}

describe('toActivityFailure: what leaves an activity', () => {
  it('a domain error: non-retryable, typed by its kind', () => {
    const failure = toActivityFailure(new DomainError('insufficient-funds', 'not enough eth available')) as ApplicationFailure;
    expect(failure).toBeInstanceOf(ApplicationFailure);
    expect(failure).toMatchObject({ type: 'insufficient-funds', nonRetryable: true, message: 'not enough eth available' });
  });

  it('a database error: retryable, with its SQLSTATE and constraint only, never the statement or its values', () => {
    const failure = toActivityFailure(wrappedDatabaseError('23505', 'crypto_withdrawal_pkey')) as ApplicationFailure;
    expect(failure).toBeInstanceOf(ApplicationFailure);
    expect(failure.nonRetryable).toBe(false);
    expect(failure.message).toBe('a database statement failed (SQLSTATE 23505, constraint crypto_withdrawal_pkey)');
    const everything = `${failure.message}\n${failure.stack ?? ''}\n${String(failure.cause ?? '')}`;
    for (const secret of ['Anna Nowak', 'DE89370400440532013000', 'insert into']) expect(everything).not.toContain(secret);
  });

  it('bad data (class 22): non-retryable invalid-request', () => {
    const failure = toActivityFailure(wrappedDatabaseError('22001')) as ApplicationFailure;
    expect(failure).toMatchObject({ type: 'invalid-request', nonRetryable: true });
    expect(failure.message).not.toContain('Anna');
  });

  it('a lost connection or a timeout: retryable database-unavailable', () => {
    const failure = toActivityFailure(new Error('Connection terminated unexpectedly')) as ApplicationFailure;
    expect(failure).toMatchObject({ type: 'database-unavailable', nonRetryable: false });
    const timeout = toActivityFailure(wrappedDatabaseError('57014')) as ApplicationFailure;
    expect(timeout.type).toBe('database-unavailable');
    expect(timeout.message).not.toContain('insert into');
  });

  it('anything else passes through unchanged', () => {
    const bug = new TypeError('x is undefined');
    expect(toActivityFailure(bug)).toBe(bug);
  });
});
