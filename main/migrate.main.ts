/**
 * `npm run migrate`, before the API and the workers start (they only check the schema). With DATABASE_ADMIN_URL it first
 * creates the roles payments_migrator and payments_app (passwords from DATABASE_MIGRATOR_URL and DATABASE_URL); then it
 * migrates as payments_migrator, grants payments_app its privileges, and checks what the service will check.
 */
import { prepareDatabase } from '../db/database-setup';
import { exitOnFailure, loadProcessSettings, mainLogger, requireSetting } from './process-support';

async function main(): Promise<void> {
  const settings = loadProcessSettings();
  const log = mainLogger('migrate', settings);
  const migratorUrl = requireSetting(settings.databaseMigratorUrl, 'DATABASE_MIGRATOR_URL');
  const applied = await prepareDatabase({ adminUrl: settings.databaseAdminUrl, migratorUrl, appUrl: settings.databaseUrl });
  log.info(applied.length > 0 ? `applied migrations: ${applied.join(', ')}` : 'the schema was up to date');
}

main().catch(exitOnFailure([]));
