import type { MikroORM } from '@mikro-orm/postgresql';
import pg from 'pg';

/** knex's client, as far as handing out its connections goes. */
interface ConnectionSource {
  acquireConnection(): Promise<pg.Client>;
  releaseConnection(connection: pg.Client): Promise<void>;
}

/**
 * The worker's plain SQL (db/queries, inPgTransaction) on MikroORM's own connections, so a worker
 * holds one pool, the ORM's, with its timeouts. It offers what they use of a pg.Pool: `query`, and
 * `connect` for a transaction. A connection that broke is marked by knex and not handed out again.
 */
export function sqlPoolOf(orm: MikroORM): pg.Pool {
  const source = orm.em.getConnection().getKnex().client as ConnectionSource;
  const connect = async () => {
    const connection = await source.acquireConnection();
    const client = {
      query: (...args: unknown[]) => connection.query(withPgTypes(args)),
      on: (event: 'error', listener: (error: Error) => void) => connection.on(event, listener),
      off: (event: 'error', listener: (error: Error) => void) => connection.off(event, listener),
      release: () => void source.releaseConnection(connection),
    };
    return client as unknown as pg.PoolClient;
  };
  const query = async (...args: unknown[]) => {
    const client = await connect();
    try {
      return await (client.query as (...queryArgs: unknown[]) => Promise<pg.QueryResult>)(...args);
    } finally {
      client.release();
    }
  };
  return { connect, query } as unknown as pg.Pool;
}

/** pg's own parsers for the statement: the ORM's connections read dates as text, the queries expect Dates. */
function withPgTypes([first, values]: unknown[]): pg.QueryConfig {
  const config = typeof first === 'string' ? { text: first, values: values as unknown[] | undefined } : (first as pg.QueryConfig);
  return { ...config, types: pg.types };
}
