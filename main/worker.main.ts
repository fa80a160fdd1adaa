/**
 * Production worker entry (`npm run worker`): only the configured DATABASE_URL and TEMPORAL_ADDRESS; never migrates.
 * Registers what is missing of its search attributes, Schedules and long-running workflows. Refuses a simulated rail
 * SIMULATED_RAILS does not name.
 */
import { Client } from '@temporalio/client';
import { InvalidSettingsError } from '../core/settings';
import { temporalConnectionOptions, temporalDataConverter } from '../core/temporal-connection';
import { connectClosable } from '../operations/temporal/closable-connection';
import { assertAppDatabaseReady } from '../db/database-readiness';
import { registerSearchAttributes } from '../worker/search-attributes.registration';
import {
  loadProcessSettings,
  RailDeclarationError,
  mainLogger,
  onShutdownSignal,
  requireDeclaredRails,
  requireProductionConnections,
  workerListeners,
  exitOnFailure,
  refuseDepositSeeds,
} from './process-support';
import { installTemporalRuntime } from '../worker/temporal-runtime';
import { ensureReconciliationSchedule } from '../worker/reconciliation-schedule';
import { INCOMING_SEPA_EVERY_SECONDS, ensureIncomingSepaSchedule } from '../worker/incoming-sepa-schedule';
import { ensureWebhookDispatcher } from '../worker/webhook-dispatcher';
import { endSweepsOnQueue } from '../worker/sweepers';
import { ensureEvmDepositWatchers, watchedNetworks, watchedUtxoNetworks } from '../worker/evm-deposit-watchers';
import { startWorker } from '../worker/worker';

async function main(): Promise<void> {
  const settings = loadProcessSettings();
  // Deposit keys live in the sweeper alone (docs/production.md, "Deposit keys"): not beside webhooks and bank documents.
  refuseDepositSeeds(settings, 'the worker');
  // First, from the settings alone: a worker that would fake payouts connects to nothing.
  const simulatedRails = requireDeclaredRails(settings, 'worker');
  const log = mainLogger('worker', settings);
  for (const rail of simulatedRails) {
    log.warn(`rail ${rail} is SIMULATED (SIMULATED_RAILS): no bank or chain moves the money of its payments`, { rail });
  }
  const listeners = workerListeners(settings.workerObservability, settings.workerObservability.host);
  installTemporalRuntime({ log, metricsBindAddress: listeners.sdkMetricsBindAddress });
  const { databaseUrl, temporalAddress } = requireProductionConnections(settings);
  // Migrations are a step of their own (`npm run migrate`); this only refuses a schema behind the code or an over-privileged role.
  await assertAppDatabaseReady(databaseUrl);
  await registerSearchAttributes(temporalAddress, settings.temporalNamespace, log, settings.temporal);
  const { connection, close: closeConnection } = await connectClosable(temporalConnectionOptions(temporalAddress, settings.temporal));
  const client = new Client({ connection, namespace: settings.temporalNamespace, dataConverter: temporalDataConverter(settings.temporal) });
  await ensureReconciliationSchedule(client, settings.temporalTaskQueue, log);
  const incomingSepaEverySeconds = settings.incomingSepaEverySeconds ?? INCOMING_SEPA_EVERY_SECONDS.deployment;
  await ensureIncomingSepaSchedule(client, settings.temporalTaskQueue, incomingSepaEverySeconds, log);
  await ensureWebhookDispatcher(client, settings.temporalTaskQueue, log);
  await endSweepsOnQueue(client, settings.temporalTaskQueue, log);
  await ensureEvmDepositWatchers(
    client,
    settings.temporalTaskQueue,
    [...watchedNetworks(settings.evmNetworks), ...watchedUtxoNetworks(settings.utxoNetworks)],
    log,
  );
  await closeConnection();
  const worker = await startWorker({
    databaseUrl,
    temporalAddress,
    namespace: settings.temporalNamespace,
    taskQueue: settings.temporalTaskQueue,
    log,
    settings,
    http: listeners.http,
  });
  if (worker.httpUrl) log.info(`worker health and metrics on ${worker.httpUrl}`);
  onShutdownSignal(log, () => worker.stop());
}

main().catch(exitOnFailure([RailDeclarationError, InvalidSettingsError]));
