import { DriverException } from '@mikro-orm/core';
import type { MikroORM } from '@mikro-orm/postgresql';
import { ApplicationFailure } from '@temporalio/common';
import { toActivityFailure } from '../../activities/domain-error.interceptor';
import { openTestOrm } from '../support/fixtures';

/** What leaves an activity when MikroORM / knex fail, with their real wrappers (the unit test models the simple cases). */
describe('database errors from MikroORM leave an activity without the statement or its values', () => {
  let orm: MikroORM;
  beforeAll(async () => {
    orm = await openTestOrm(2);
  });
  afterAll(() => orm.close(true));

  it('a real refused statement: SQLSTATE and constraint only', async () => {
    const secret = `Anna Nowak ${Date.now()}`;
    const error = await orm.em
      .fork()
      .getConnection()
      .execute(`select ('x' || ?)::int as n`, [secret])
      .then(
        () => undefined,
        (caught: unknown) => caught,
      );
    expect(String((error as Error).message)).toContain(secret); // knex put the values in the message
    const failure = toActivityFailure(error) as ApplicationFailure;
    expect(failure).toBeInstanceOf(ApplicationFailure);
    expect(`${failure.message}\n${failure.stack ?? ''}`).not.toContain(secret);
  });

  it('a connection lost mid-statement, as knex rewrites it (statement first, no SQLSTATE): database-unavailable, sanitized', () => {
    const sql = "update crypto_withdrawal set name = 'Anna Nowak' where id = 1";
    const lost = new DriverException(new Error(`${sql} - Connection terminated unexpectedly`));
    const failure = toActivityFailure(lost) as ApplicationFailure;
    expect(failure).toMatchObject({ type: 'database-unavailable', nonRetryable: false });
    expect(`${failure.message}${failure.stack ?? ''}`).not.toContain('Anna Nowak');
    const other = toActivityFailure(new DriverException(new Error(`${sql} - something else`))) as ApplicationFailure;
    expect(other.type).toBe('database-error');
    expect(other.message).not.toContain('Anna Nowak');
  });
});
