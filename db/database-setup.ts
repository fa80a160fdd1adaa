import { assertAppDatabaseReady } from './database-readiness';
import { ensureDatabaseRoles } from './database-roles';
import { migrate } from './orm';

/** The three connections to the service's database, each a role of its own (docs/production.md, "Database roles"). */
export interface DatabaseUrls {
  /** payments_app: what the API, the worker and the CLI use. */
  appUrl: string | undefined;
  /** payments_migrator: the schema's owner, for migrations only. */
  migratorUrl: string | undefined;
  /** A role that may create roles; only to create the others. */
  adminUrl: string | undefined;
  /** payments_ops: the operator CLI's (`npm run ops`); made with the others when given. */
  opsUrl?: string | undefined;
}

/**
 * `npm run migrate` (also for `npm start`, the tests, the bench): the roles when an admin URL is given, the migrations
 * and grants, then the service's start check; returns the migrations applied.
 */
export async function prepareDatabase(urls: DatabaseUrls): Promise<string[]> {
  if (urls.adminUrl) {
    if (!urls.migratorUrl || !urls.appUrl)
      throw new Error('DATABASE_ADMIN_URL creates the roles of DATABASE_MIGRATOR_URL and DATABASE_URL: set both');
    await ensureDatabaseRoles(urls.adminUrl, { migratorUrl: urls.migratorUrl, appUrl: urls.appUrl, opsUrl: urls.opsUrl });
  }
  const applied = urls.migratorUrl ? await migrate(urls.migratorUrl) : [];
  if (urls.appUrl) await assertAppDatabaseReady(urls.appUrl);
  return applied;
}
