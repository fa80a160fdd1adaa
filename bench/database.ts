import pg from 'pg';

/**
 * The bench's own connections. An idle one that loses its server (Postgres stopping on a Ctrl-C
 * that reached the whole process group) emits 'error'; unheard, that would end the bench before
 * it stops the rest. Queries under way still fail and say why.
 */
export function openPool(connectionString: string, max: number): pg.Pool {
  const pool = new pg.Pool({ connectionString, max });
  // Idle clients report through the pool, checked-out ones (pool.connect()) on themselves.
  pool.on('error', () => undefined);
  pool.on('connect', (client) => client.on('error', () => undefined));
  return pool;
}

/** One connection for a few statements, always closed. */
export async function withClient<T>(connectionString: string, work: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString });
  client.on('error', () => undefined);
  await client.connect();
  try {
    return await work(client);
  } finally {
    await client.end().catch(() => undefined);
  }
}
