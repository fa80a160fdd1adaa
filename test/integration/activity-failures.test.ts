import { DriverException } from '@mikro-orm/core';
import type { MikroORM } from '@mikro-orm/postgresql';
import { ApplicationFailure } from '@temporalio/common';
import { toActivityFailure } from '../../activities/domain-error.interceptor';
import { isDatabaseUnavailable } from '../../db/connection-settings';
import { openOrm } from '../../db/orm';
import { openTestOrm } from '../support/fixtures';
import { TcpProxy } from '../support/tcp-proxy';
import { testStack } from '../support/stack';

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

/**
 * A failed BEGIN races in knex: the caller gets BEGIN's error or, when the transaction was handed out
 * first, "Transaction query already complete" from its first statement, without the cause (CI's fault
 * campaign met that while Postgres was killed). Nothing ran in that transaction either way: the
 * database was unavailable, a 503 and a retried activity, not a P500.
 */
describe('a transaction whose BEGIN meets a connection that died unnoticed', () => {
  let proxy: TcpProxy;
  let orm: MikroORM;
  beforeAll(async () => {
    const url = new URL(testStack().databaseUrl);
    proxy = await TcpProxy.start(`${url.hostname}:${url.port}`);
    url.host = proxy.address;
    orm = await openOrm(url.toString(), 1);
  });
  afterAll(async () => {
    await orm.close(true);
    await proxy.stop();
  });

  it('is classified as the database unavailable (API 503, activity retried)', async () => {
    await orm.em.fork().getConnection().execute('select 1'); // the pool's one connection, open
    proxy.failOpenConnectionsAtNextWrite();
    const error = await orm.em
      .fork()
      .transactional((em) => em.execute('select 1'))
      .then(
        () => undefined,
        (caught: unknown) => caught,
      );
    // BEGIN's own error or, when knex handed the transaction out first, "Transaction query already complete".
    expect(String((error as Error).message)).toMatch(/^BEGIN; - Connection terminated|Transaction query already complete/);
    expect(isDatabaseUnavailable(error)).toBe(true);
    expect(toActivityFailure(error)).toMatchObject({ type: 'database-unavailable', nonRetryable: false });
    // The pool recovers: the next transaction works.
    await expect(orm.em.fork().transactional((em) => em.execute('select 1 as n'))).resolves.toEqual([{ n: 1 }]);
  });
});
