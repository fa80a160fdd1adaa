import pg from 'pg';
import { APP_ROLE } from './database-roles';
import { MIGRATIONS } from './migrations';
import { sqlStateOf } from './sql-errors';

/**
 * Checked by the API, the worker and the CLI before they serve: every migration of this code is applied (they never
 * migrate), and their role is neither a superuser nor the owner (who may disable the ledger's triggers), nor able to
 * rewrite ledger postings. Throws the reason and what to run.
 */
export async function assertAppDatabaseReady(appUrl: string): Promise<void> {
  const client = new pg.Client({ connectionString: appUrl, connectionTimeoutMillis: 10_000 });
  try {
    await client.connect();
  } catch (error) {
    if (sqlStateOf(error)?.startsWith('28'))
      throw new Error(
        `cannot log in to the database as ${roleOf(appUrl)} (${messageOf(error)}): \`npm run migrate\` with DATABASE_ADMIN_URL creates ${APP_ROLE} (\`npm start\` does it for the embedded Postgres)`,
      );
    throw error;
  }
  try {
    const pending = await pendingMigrations(client);
    if (pending.length > 0)
      throw new Error(
        `the database schema is not migrated: ${pending.length} migration(s) pending, up to ${pending[pending.length - 1]}; run \`npm run migrate\` first`,
      );
    const problems = await privilegeProblems(client);
    if (problems.length > 0)
      throw new Error(
        `DATABASE_URL connects as ${roleOf(appUrl)}, which ${problems.join(' and ')}: the service connects as ${APP_ROLE} (DML only; docs/production.md, "Database roles")`,
      );
  } finally {
    await client.end().catch(() => undefined);
  }
}

/** Names of this code's migrations the database has not applied, oldest first. Newer ones there (a later release) are fine. */
async function pendingMigrations(client: pg.Client): Promise<string[]> {
  let applied: Set<string>;
  try {
    const result = await client.query<{ name: string }>('select name from mikro_orm_migrations');
    applied = new Set(result.rows.map((row) => row.name));
  } catch (error) {
    if (sqlStateOf(error) === '42P01') applied = new Set();
    else if (sqlStateOf(error) === '42501')
      throw new Error(
        `the role ${String((await client.query<{ name: string }>('select current_user as name')).rows[0]?.name)} may not read the schema: DATABASE_URL must connect as ${APP_ROLE}, whose privileges \`npm run migrate\` grants`,
      );
    else throw error;
  }
  return MIGRATIONS.map((migration) => migration.name).filter((name) => !applied.has(name));
}

async function privilegeProblems(client: pg.Client): Promise<string[]> {
  const result = await client.query<{ superuser: boolean; owner: boolean; rewrites_postings: boolean }>(
    `select r.rolsuper as superuser,
            pg_has_role(current_user, c.relowner, 'MEMBER') as owner,
            has_table_privilege(c.oid, 'UPDATE') or has_table_privilege(c.oid, 'DELETE') or has_table_privilege(c.oid, 'TRUNCATE')
              as rewrites_postings
       from pg_roles r, pg_class c
      where r.rolname = current_user and c.oid = 'public.ledger_posting'::regclass`,
  );
  const role = result.rows[0];
  if (!role) return ['cannot be checked'];
  return [
    ...(role.superuser ? ['is a superuser'] : []),
    ...(role.owner && !role.superuser ? ['owns the schema (or may act as its owner)'] : []),
    ...(role.rewrites_postings && !role.superuser && !role.owner ? ['may update, delete or truncate ledger postings'] : []),
  ];
}

function roleOf(url: string): string {
  try {
    return decodeURIComponent(new URL(url).username) || '(the default user)';
  } catch {
    return '(unknown)';
  }
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
