import type pg from 'pg';

/** Runs `work` in one Postgres transaction on one connection: committed if it returns, rolled back if it throws. */
export async function inPgTransaction<T>(pool: pg.Pool, work: (client: pg.PoolClient) => Promise<T>): Promise<T> {
  const client = await pool.connect();
  // A checked-out client has no pool listener: a lost connection's 'error' would end the process. Caught, the client is discarded.
  let lost: Error | undefined;
  const onError = (error: Error) => {
    lost = error;
  };
  client.on('error', onError);
  try {
    await client.query('begin');
    const result = await work(client);
    await client.query('commit');
    return result;
  } catch (error) {
    await client.query('rollback').catch(() => undefined);
    throw error;
  } finally {
    client.off('error', onError);
    client.release(lost ?? false);
  }
}
