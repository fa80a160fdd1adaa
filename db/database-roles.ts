import pg from 'pg';

/** Owns the schema and runs the migrations (`npm run migrate`); no process of the service connects as it. */
export const MIGRATOR_ROLE = 'payments_migrator';
/** The API, the worker and the sweeper: DML on what they need (apply_payments_app_privileges()), no DDL. */
export const APP_ROLE = 'payments_app';
/**
 * The operator CLI (`npm run ops`): reads everything, writes no ledger table, and changes the ledger only through the
 * `operator` schema's functions, which its search_path finds first (apply_payments_ops_privileges(), db/privileges.sql).
 */
export const OPS_ROLE = 'payments_ops';

export interface DatabaseRoleUrls {
  /** Its user must be payments_migrator; its password becomes that role's. */
  migratorUrl: string;
  /** Its user must be payments_app; its password becomes that role's. */
  appUrl: string;
  /** Its user must be payments_ops; its password becomes that role's. Without it, no operator role is made. */
  opsUrl?: string | undefined;
}

/** Both roles may log in and nothing more: no superuser, no roles or databases, no replication, no way around row security. */
const LOGIN_ONLY = 'login nosuperuser nocreatedb nocreaterole noreplication nobypassrls noinherit';

/**
 * As a role that may create roles: creates both roles if missing with their URLs' passwords, hands the database, its
 * public schema and everything in it to payments_migrator (a schema migrated earlier belongs to whoever migrated it),
 * and lets no other role connect or create. Idempotent, in one transaction, so every `npm run migrate` may run it.
 */
export async function ensureDatabaseRoles(adminUrl: string, urls: DatabaseRoleUrls): Promise<void> {
  const database = databaseNameOf(adminUrl, 'DATABASE_ADMIN_URL');
  const migratorPassword = passwordFor(urls.migratorUrl, MIGRATOR_ROLE, database, 'DATABASE_MIGRATOR_URL');
  const appPassword = passwordFor(urls.appUrl, APP_ROLE, database, 'DATABASE_URL');
  const opsPassword = urls.opsUrl === undefined ? undefined : passwordFor(urls.opsUrl, OPS_ROLE, database, 'DATABASE_OPS_URL');
  const client = new pg.Client({ connectionString: adminUrl });
  await client.connect();
  try {
    await client.query('begin');
    // Two bootstraps at once (two deploys) take turns instead of racing on CREATE ROLE.
    await client.query('select pg_advisory_xact_lock(727002)');
    const roles: Array<readonly [string, string]> = [
      [MIGRATOR_ROLE, migratorPassword],
      [APP_ROLE, appPassword],
      ...(opsPassword === undefined ? [] : [[OPS_ROLE, opsPassword] as const]),
    ];
    for (const [role, password] of roles) {
      const exists = await client.query('select 1 from pg_roles where rolname = $1', [role]);
      if (exists.rowCount === 0) await client.query(`create role ${client.escapeIdentifier(role)}`);
      await client.query(`alter role ${client.escapeIdentifier(role)} ${LOGIN_ONLY} password ${client.escapeLiteral(password)}`);
    }
    await client.query(`alter database ${client.escapeIdentifier(database)} owner to ${MIGRATOR_ROLE}`);
    // Only the service's roles connect (Temporal's role, on the same server, has databases of its own).
    await client.query(`revoke all on database ${client.escapeIdentifier(database)} from public`);
    await client.query(`grant connect, temporary on database ${client.escapeIdentifier(database)} to ${APP_ROLE}`);
    if (opsPassword !== undefined) {
      await client.query(`grant connect on database ${client.escapeIdentifier(database)} to ${OPS_ROLE}`);
      // Its ledger calls resolve to the operator schema's narrowed functions (db/migrations, operator_role); public's are not its to run.
      await client.query(`alter role ${OPS_ROLE} set search_path = operator, public`);
    }
    await client.query(`alter schema public owner to ${MIGRATOR_ROLE}`);
    await client.query('revoke all on schema public from public');
    await client.query(`grant usage on schema public to ${APP_ROLE}`);
    await client.query(HAND_OVER_EXISTING_OBJECTS);
    await client.query('commit');
  } catch (error) {
    await client.query('rollback').catch(() => undefined);
    throw error;
  } finally {
    await client.end();
  }
}

/** Tables (with their sequences), views and functions of the public schema go to payments_migrator; extensions' stay. */
const HAND_OVER_EXISTING_OBJECTS = `
do $$
declare
  v_statement text;
begin
  for v_statement in
    select format('alter %s %s owner to ${MIGRATOR_ROLE}',
                  case c.relkind when 'v' then 'view' when 'm' then 'materialized view' when 'S' then 'sequence' else 'table' end,
                  c.oid::regclass)
      from pg_class c
     where c.relnamespace = 'public'::regnamespace
       and c.relkind in ('r', 'p', 'v', 'm', 'S')
       and c.relowner <> '${MIGRATOR_ROLE}'::regrole
       and not exists (select 1 from pg_depend d where d.classid = 'pg_class'::regclass and d.objid = c.oid and d.deptype = 'e')
       -- A sequence that belongs to a column moves with its table.
       and not (c.relkind = 'S' and exists (select 1 from pg_depend d
                 where d.classid = 'pg_class'::regclass and d.objid = c.oid and d.deptype in ('a', 'i')))
     order by c.relkind = 'S'
  loop
    execute v_statement;
  end loop;
  for v_statement in
    select format('alter %s %s owner to ${MIGRATOR_ROLE}', case p.prokind when 'p' then 'procedure' else 'function' end, p.oid::regprocedure)
      from pg_proc p
     where p.pronamespace = 'public'::regnamespace
       and p.proowner <> '${MIGRATOR_ROLE}'::regrole
       and not exists (select 1 from pg_depend d where d.classid = 'pg_proc'::regclass and d.objid = p.oid and d.deptype = 'e')
  loop
    execute v_statement;
  end loop;
end $$`;

function databaseNameOf(url: string, variable: string): string {
  const name = decodeURIComponent(new URL(url).pathname.replace(/^\//, ''));
  if (!name) throw new Error(`${variable} must name the service's database (postgres://…/partner_payments)`);
  return name;
}

/** The URL's password, once its user and database are the ones this role needs. */
function passwordFor(url: string, role: string, database: string, variable: string): string {
  const parsed = new URL(url);
  if (decodeURIComponent(parsed.username) !== role) throw new Error(`${variable} must connect as the role ${role}`);
  if (databaseNameOf(url, variable) !== database) throw new Error(`${variable} must name the same database as DATABASE_ADMIN_URL`);
  const password = decodeURIComponent(parsed.password);
  if (password.length === 0) throw new Error(`${variable} must carry the password of ${role} (postgres://${role}:PASSWORD@host/db)`);
  return password;
}
