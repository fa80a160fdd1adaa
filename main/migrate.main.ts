/**
 * `npm run migrate`, before the API and the workers start (they only check the schema). With DATABASE_ADMIN_URL it first
 * creates the roles payments_migrator, payments_app and, with DATABASE_OPS_URL, payments_ops (passwords from their URLs); then it
 * migrates as payments_migrator, grants the other two their privileges, and checks what the service will check.
 */
import { prepareDatabase } from '../db/database-setup';
import { exitOnFailure, loadProcessSettings, mainLogger, requireSetting } from './process-support';

async function main(): Promise<void> {
  const settings = loadProcessSettings();
  const log = mainLogger('migrate', settings);
  const migratorUrl = requireSetting(settings.databaseMigratorUrl, 'DATABASE_MIGRATOR_URL');
  const applied = await prepareDatabase({
    adminUrl: settings.databaseAdminUrl,
    migratorUrl,
    appUrl: settings.databaseUrl,
    opsUrl: settings.databaseOpsUrl,
  });
  log.info(applied.length > 0 ? `applied migrations: ${applied.join(', ')}` : 'the schema was up to date');
}

main().catch(exitOnFailure([]));
