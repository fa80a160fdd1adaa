import fs from 'node:fs';
import path from 'node:path';
import pg from 'pg';
import { MikroORM } from '@mikro-orm/postgresql';
import { Migrator } from '@mikro-orm/migrations';
import { DEFAULT_DATABASE_TIMEOUTS, poolConfig } from './connection-settings';
import type { DatabaseTimeouts } from './connection-settings';
import { ENTITY_SCHEMAS } from './entities';
import { MIGRATIONS } from './migrations';

export async function openOrm(
  databaseUrl: string,
  poolMax = 10,
  timeouts: DatabaseTimeouts = DEFAULT_DATABASE_TIMEOUTS,
): Promise<MikroORM> {
  const connectionTimeouts: Record<string, unknown> = { ...poolConfig(databaseUrl, poolMax, timeouts) };
  // The URL and pool size are MikroORM's own options.
  delete connectionTimeouts.connectionString;
  delete connectionTimeouts.max;
  return MikroORM.init({
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
  });
}

/** What payments_app may do, re-applied after every run of migrations (idempotent); in the Docker image too (`COPY db`). */
const PRIVILEGES_FILE = path.join(__dirname, 'privileges.sql');

/** Any constant, the same for every process of this service. */
const MIGRATION_ADVISORY_LOCK = 727_001;

/**
 * Applies pending migrations as payments_migrator, then grants payments_app its privileges on every table that now exists;
 * concurrent runs take turns on an advisory lock.
 */
export async function migrate(migratorUrl: string): Promise<string[]> {
  const privileges = fs.readFileSync(PRIVILEGES_FILE, 'utf8');
  const lockClient = new pg.Client({ connectionString: migratorUrl });
  await lockClient.connect();
  try {
    await lockClient.query('select pg_advisory_lock($1)', [MIGRATION_ADVISORY_LOCK]);
    await refuseDatabaseBeforeBaseline(lockClient);
    // A migration may build an index for minutes: no statement timeout (locks still time out).
    const orm = await openOrm(migratorUrl, 2, { ...DEFAULT_DATABASE_TIMEOUTS, statementTimeoutMs: 0 });
    try {
      const applied = await orm.getMigrator().up();
      await lockClient.query(privileges);
      return applied.map((migration) => migration.name);
    } finally {
      await orm.close(true);
    }
  } finally {
    await lockClient.query('select pg_advisory_unlock($1)', [MIGRATION_ADVISORY_LOCK]).catch(() => undefined);
    await lockClient.end();
  }
}

/** A database migrated before the baseline: MikroORM would apply the baseline on top and fail; refused before any change. */
async function refuseDatabaseBeforeBaseline(client: pg.Client): Promise<void> {
  const baseline = MIGRATIONS[0]!.name;
  const table = await client.query<{ exists: boolean }>(`select to_regclass('public.mikro_orm_migrations') is not null as exists`);
  if (!table.rows[0]?.exists) return;
  const applied = await client.query<{ name: string }>('select name from mikro_orm_migrations');
  if (applied.rows.length === 0 || applied.rows.some((row) => row.name === baseline)) return;
  throw new Error(
    `the database predates the schema's baseline ${baseline}, which replaced the migrations it was migrated with: nothing was changed. ` +
      "For npm start's development data, delete its data folder (DATA_DIR: .data, or .data/cluster for npm run start:cluster) and start again; " +
      'any other database: migrate a new, empty one',
  );
}
