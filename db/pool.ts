import pg from 'pg';

/** How long an end waits for sockets still closing: a server that no longer answers never closes its side. */
const CLOSE_WAIT_MS = 5_000;

const openClients = new WeakMap<pg.Pool, Set<pg.PoolClient>>();

/** A pool whose `endPool` waits until every connection it opened has closed its socket. */
export function openPool(config: pg.PoolConfig): pg.Pool {
  const pool = new pg.Pool(config);
  const open = new Set<pg.PoolClient>();
  pool.on('connect', (client) => {
    open.add(client);
    client.once('end', () => open.delete(client));
  });
  openClients.set(pool, open);
  return pool;
}

/** Ends the pool and waits (a few seconds at most) for its sockets to close, which pg-pool's `end()` does not. */
export async function endPool(pool: pg.Pool): Promise<void> {
  const closing = [...(openClients.get(pool) ?? [])].map((client) => new Promise<void>((resolve) => client.once('end', () => resolve())));
  await pool.end();
  let timer: NodeJS.Timeout | undefined;
  const waited = new Promise<void>((resolve) => (timer = setTimeout(resolve, CLOSE_WAIT_MS).unref()));
  await Promise.race([Promise.all(closing), waited]);
  clearTimeout(timer);
}
