/**
 * `npm run migrate`: the schema, as a step of its own before the API and the workers start (they
 * only check it). With DATABASE_ADMIN_URL it first creates the roles payments_migrator and
 * payments_app with the passwords of DATABASE_MIGRATOR_URL and DATABASE_URL and hands the schema
 * to payments_migrator; then it applies the migrations as payments_migrator and grants
 * payments_app its privileges; then, with DATABASE_URL, it checks what the service will check.
 */
import { prepareDatabase } from '../db/database-setup';
import { loadProcessSettings, mainLogger, requireSetting } from './process-support';

async function main(): Promise<void> {
  const settings = loadProcessSettings();
  const log = mainLogger('migrate', settings);
  const migratorUrl = requireSetting(settings.databaseMigratorUrl, 'DATABASE_MIGRATOR_URL');
  const applied = await prepareDatabase({ adminUrl: settings.databaseAdminUrl, migratorUrl, appUrl: settings.databaseUrl });
  log.info(applied.length > 0 ? `applied migrations: ${applied.join(', ')}` : 'the schema was up to date');
}

main().catch((error: unknown) => {
  process.stderr.write(`${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
  process.exit(1);
});
