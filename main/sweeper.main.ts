/**
 * Production sweeper entry (`npm run sweeper`): the only process given the deposit seeds (EVM_DEPOSIT_SEED,
 * BTC_DEPOSIT_SEED, …). It serves the sweeps' task queue (TEMPORAL_SWEEPER_TASK_QUEUE) alone: sweepers and sweeps, with
 * no webhook, bank or partner-chosen outbound activity. Only the configured DATABASE_URL and TEMPORAL_ADDRESS; never migrates.
 */
import { Client } from '@temporalio/client';
import { InvalidSettingsError } from '../core/settings';
import { temporalConnectionOptions, temporalDataConverter } from '../core/temporal-connection';
import { connectClosable } from '../operations/temporal/closable-connection';
import { assertAppDatabaseReady } from '../db/database-readiness';
import {
  exitOnFailure,
  loadProcessSettings,
  mainLogger,
  onShutdownSignal,
  requireProductionConnections,
  workerListeners,
} from './process-support';
import { installTemporalRuntime } from '../worker/temporal-runtime';
import { ensureSweepers } from '../worker/sweepers';
import { startSweeperWorker, sweepPollIntervalMs, sweptNetworks } from '../worker/sweeper-worker';

async function main(): Promise<void> {
  // The seeds leave this process's environment once read (core/settings/load.ts).
  const settings = loadProcessSettings();
  const log = mainLogger('sweeper', settings);
  const listeners = workerListeners(settings.workerObservability, settings.workerObservability.host);
  installTemporalRuntime({ log, metricsBindAddress: listeners.sdkMetricsBindAddress });
  const { databaseUrl, temporalAddress } = requireProductionConnections(settings);
  await assertAppDatabaseReady(databaseUrl);
  const swept = sweptNetworks(settings);
  if (swept.length === 0)
    log.warn('nothing to sweep: no network has both its node (EVM_RPC_URL_…, UTXO_RPC_URL_…) and its deposit seed here');
  const { connection, close: closeConnection } = await connectClosable(temporalConnectionOptions(temporalAddress, settings.temporal));
  const client = new Client({ connection, namespace: settings.temporalNamespace, dataConverter: temporalDataConverter(settings.temporal) });
  const taskQueue = settings.temporalSweeperTaskQueue;
  await ensureSweepers(client, { taskQueue, pollIntervalMs: sweepPollIntervalMs(settings) }, swept, log);
  await closeConnection();
  const sweeper = await startSweeperWorker({
    databaseUrl,
    temporalAddress,
    namespace: settings.temporalNamespace,
    taskQueue,
    log,
    settings,
    http: listeners.http,
  });
  if (sweeper.httpUrl) log.info(`sweeper health and metrics on ${sweeper.httpUrl}`);
  onShutdownSignal(log, () => sweeper.stop());
}

main().catch(exitOnFailure([InvalidSettingsError]));
