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

/** The grants, once the migration that defines them has run (a DO block: no error while it has not). */
const APPLY_APP_PRIVILEGES = `do $$ begin
  if to_regprocedure('public.apply_payments_app_privileges()') is not null then
    perform public.apply_payments_app_privileges();
  end if;
end $$`;

/** Any constant works; it only has to be the same for every process of this service. */
const MIGRATION_ADVISORY_LOCK = 727_001;

/**
 * Applies pending migrations as the schema's owner (payments_migrator: DATABASE_MIGRATOR_URL), then
 * grants payments_app what it may do on every table that now exists (apply_payments_app_privileges,
 * Migration20261124090000_least_privilege), so a table any migration created is covered. An
 * advisory lock makes concurrent runs take turns.
 */
export async function migrate(migratorUrl: string): Promise<string[]> {
  const lockClient = new pg.Client({ connectionString: migratorUrl });
  await lockClient.connect();
  try {
    await lockClient.query('select pg_advisory_lock($1)', [MIGRATION_ADVISORY_LOCK]);
    // A migration may build an index for minutes: no statement timeout (locks still time out).
    const orm = await openOrm(migratorUrl, 2, { ...DEFAULT_DATABASE_TIMEOUTS, statementTimeoutMs: 0 });
    try {
      const applied = await orm.getMigrator().up();
      await lockClient.query(APPLY_APP_PRIVILEGES);
      return applied.map((migration) => migration.name);
    } finally {
      await orm.close(true);
    }
  } finally {
    await lockClient.query('select pg_advisory_unlock($1)', [MIGRATION_ADVISORY_LOCK]).catch(() => undefined);
    await lockClient.end();
  }
}
