import type { MikroORM } from '@mikro-orm/postgresql';
import { sqlPoolOf } from '../../db/orm-sql-pool';
import { inPgTransaction } from '../../db/pg-transaction';
import { openTestOrm } from '../support/fixtures';

/** The worker's plain SQL on the ORM's connections (db/orm-sql-pool.ts): what db/queries expects of a pg pool. */

let orm: MikroORM;
beforeAll(async () => {
  // One connection: what one transaction left behind, the next statement would see.
  orm = await openTestOrm(1);
});
afterAll(async () => {
  await orm.close(true);
});

describe("plain SQL on the ORM's pool", () => {
  it("reads values as pg does, though the ORM's connections read dates as text; named statements too", async () => {
    const pool = sqlPoolOf(orm);
    const { rows } = await pool.query<{ at: Date; n: string }>({
      name: 'orm_sql_pool_probe',
      text: `select timestamptz '2026-11-27 10:00:00+00' as at, $1::numeric as n`,
      values: ['1.50'],
    });
    expect(rows).toEqual([{ at: new Date('2026-11-27T10:00:00Z'), n: '1.50' }]);
    // The ORM's own reads are as they were: the parsers were the statement's only.
    const [raw] = await orm.em.fork().getConnection().execute(`select timestamptz '2026-11-27 10:00:00+00' as at`);
    expect(typeof raw?.at).toBe('string');
  });

  it('runs a transaction on one of its connections: committed when the work returns, rolled back when it throws', async () => {
    const pool = sqlPoolOf(orm);
    const pids = await inPgTransaction(pool, async (client) => {
      const first = await client.query<{ pid: number }>('select pg_backend_pid() as pid');
      const second = await client.query<{ pid: number }>('select pg_backend_pid() as pid');
      return [first.rows[0]!.pid, second.rows[0]!.pid];
    });
    expect(pids[0]).toBe(pids[1]);
    await expect(
      inPgTransaction(pool, async (client) => {
        await client.query(`select set_config('payments.probe', 'rolled-back', false)`);
        throw new Error('work failed');
      }),
    ).rejects.toThrow('work failed');
    const { rows } = await pool.query<{ probe: string | null }>(`select current_setting('payments.probe', true) as probe`);
    expect(rows[0]!.probe ?? '').toBe('');
    // Back in the pool and usable: one connection serves them all in turn.
    const answers = await Promise.all(Array.from({ length: 6 }, (_, i) => pool.query<{ i: number }>('select $1::int as i', [i])));
    expect(answers.map(({ rows }) => rows[0]!.i)).toEqual([0, 1, 2, 3, 4, 5]);
  });
});
