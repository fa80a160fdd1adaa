/**
 * Production API entry (`npm run api`): uses only the configured DATABASE_URL (payments_app) and
 * TEMPORAL_ADDRESS, starts nothing else and never migrates (`npm run migrate` does).
 */
import { assertAppDatabaseReady } from '../db/database-readiness';
import { loadProcessSettings, mainLogger, onShutdownSignal, requireSetting } from './process-support';
import { startApi } from '../api/server';

async function main(): Promise<void> {
  const settings = loadProcessSettings();
  const log = mainLogger('api', settings);
  const databaseUrl = requireSetting(settings.databaseUrl, 'DATABASE_URL');
  const temporalAddress = requireSetting(settings.temporalAddress, 'TEMPORAL_ADDRESS');
  // Production never writes what partners sent to Temporal in clear (README, "Payload encryption").
  requireSetting(settings.temporal.payloadKeys, 'PAYLOAD_ENCRYPTION_KEYS');
  // Migrations are a step of their own (`npm run migrate`); this only refuses a schema behind the code or an over-privileged role.
  await assertAppDatabaseReady(databaseUrl);
  const api = await startApi({ ...settings, databaseUrl, temporalAddress, log });
  log.info(`API listening on ${api.url}`);
  onShutdownSignal(log, () => api.stop());
}

main().catch((error: unknown) => {
  process.stderr.write(`${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
  process.exit(1);
});
