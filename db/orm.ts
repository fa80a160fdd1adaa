import pg from 'pg';
import { MikroORM } from '@mikro-orm/postgresql';
import type { Options } from '@mikro-orm/postgresql';
import { Migrator } from '@mikro-orm/migrations';
import { DEFAULT_DATABASE_TIMEOUTS, poolConfig } from './connection-settings';
import type { DatabaseTimeouts } from './connection-settings';
import { ENTITY_SCHEMAS } from './entities';
import { MIGRATIONS } from './migrations';

export function ormOptions(databaseUrl: string, poolMax = 10, timeouts: DatabaseTimeouts = DEFAULT_DATABASE_TIMEOUTS): Options {
  const connectionTimeouts: Record<string, unknown> = { ...poolConfig(databaseUrl, poolMax, timeouts) };
  // The URL and pool size are MikroORM's own options.
  delete connectionTimeouts.connectionString;
  delete connectionTimeouts.max;
  return {
    clientUrl: databaseUrl,
    // knex hands these to every pg client it opens: the same timeouts as the plain pools.
    driverOptions: { connection: connectionTimeouts },
    entities: ENTITY_SCHEMAS,
    extensions: [Migrator],
    migrations: { migrationsList: MIGRATIONS, transactional: true, allOrNothing: true, silent: true },
    pool: { min: 0, max: poolMax },
    // Logs would pollute the operator CLI's stdout; errors surface as exceptions instead.
    debug: false,
    allowGlobalContext: false,
    discovery: { warnWhenNoEntities: true },
  };
}

export async function openOrm(
  databaseUrl: string,
  poolMax = 10,
  timeouts: DatabaseTimeouts = DEFAULT_DATABASE_TIMEOUTS,
): Promise<MikroORM> {
  return MikroORM.init(ormOptions(databaseUrl, poolMax, timeouts));
}

/** Any constant works; it only has to be the same for every process of this service. */
const MIGRATION_ADVISORY_LOCK = 727_001;

/** Applies pending migrations; an advisory lock makes concurrent starts (API and worker) take turns. */
export async function migrate(databaseUrl: string): Promise<string[]> {
  const lockClient = new pg.Client({ connectionString: databaseUrl });
  await lockClient.connect();
  try {
    await lockClient.query('select pg_advisory_lock($1)', [MIGRATION_ADVISORY_LOCK]);
    // A migration may build an index for minutes: no statement timeout (locks still time out).
    const orm = await openOrm(databaseUrl, 2, { ...DEFAULT_DATABASE_TIMEOUTS, statementTimeoutMs: 0 });
    try {
      const applied = await orm.getMigrator().up();
      return applied.map((migration) => migration.name);
    } finally {
      await orm.close(true);
    }
  } finally {
    await lockClient.query('select pg_advisory_unlock($1)', [MIGRATION_ADVISORY_LOCK]).catch(() => undefined);
    await lockClient.end();
  }
}
