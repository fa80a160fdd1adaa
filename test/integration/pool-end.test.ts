import net from 'node:net';
import pg from 'pg';
import { endPool, openPool } from '../../db/pool';
import { testStack } from '../support/stack';

/** The sockets of this process connected to the run's Postgres, open or closing. */
function socketsToPostgres(): net.Socket[] {
  const port = Number(new URL(testStack().databaseUrl).port);
  return (process as unknown as { _getActiveHandles(): unknown[] })
    ._getActiveHandles()
    .filter((handle): handle is net.Socket => handle instanceof net.Socket && handle.remotePort === port);
}

/** Three connections at once, each busy for a moment, so the pool holds three. */
async function useThreeConnections(pool: pg.Pool): Promise<void> {
  await Promise.all([1, 2, 3].map(() => pool.query('select pg_sleep(0.05)')));
}

describe('ending a pool', () => {
  it('endPool resolves once every connection the pool opened has closed its socket', async () => {
    const before = socketsToPostgres().length;
    const pool = openPool({ connectionString: testStack().databaseUrl, max: 3 });
    await useThreeConnections(pool);
    expect(socketsToPostgres().length).toBe(before + 3);
    await endPool(pool);
    expect(socketsToPostgres().length).toBe(before);
  });

  it("pg-pool's own end resolves while its sockets are still closing (what endPool waits for)", async () => {
    const before = socketsToPostgres().length;
    const pool = new pg.Pool({ connectionString: testStack().databaseUrl, max: 3 });
    await useThreeConnections(pool);
    await pool.end();
    expect(socketsToPostgres().length).toBeGreaterThan(before);
  });
});
