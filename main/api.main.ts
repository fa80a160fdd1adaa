/**
 * Production API entry (`npm run api`): only the configured DATABASE_URL and TEMPORAL_ADDRESS; never migrates. Refuses a
 * simulated rail SIMULATED_RAILS does not name (the worker checks the EVM networks, whose nodes it holds).
 */
import { assertAppDatabaseReady } from '../db/database-readiness';
import {
  RailDeclarationError,
  loadProcessSettings,
  mainLogger,
  onShutdownSignal,
  requireDeclaredRails,
  requireProductionConnections,
  exitOnFailure,
  refuseDepositSeeds,
} from './process-support';
import { InvalidSettingsError } from '../core/settings';
import { startApi } from '../api/server';

async function main(): Promise<void> {
  const settings = loadProcessSettings();
  refuseDepositSeeds(settings, 'the API');
  const simulatedRails = requireDeclaredRails(settings, 'api');
  const log = mainLogger('api', settings);
  const { databaseUrl, temporalAddress } = requireProductionConnections(settings);
  // Migrations are a step of their own (`npm run migrate`); this only refuses a schema behind the code or an over-privileged role.
  await assertAppDatabaseReady(databaseUrl);
  const api = await startApi({ ...settings, databaseUrl, temporalAddress, log, simulatedRails });
  log.info(
    `API listening on ${api.url}${api.metricsUrl ? `, GET /metrics on ${api.metricsUrl}` : ' (no /metrics listener: API_METRICS_PORT=0)'}`,
  );
  onShutdownSignal(log, () => api.stop());
}

main().catch(exitOnFailure([RailDeclarationError, InvalidSettingsError]));
