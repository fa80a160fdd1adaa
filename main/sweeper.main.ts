/**
 * Production sweeper entry (`npm run sweeper`): the only process given the deposit seeds (EVM_DEPOSIT_SEED,
 * BTC_DEPOSIT_SEED, …). It serves the sweeps' task queue (TEMPORAL_SWEEPER_TASK_QUEUE) alone: sweepers and sweeps, with
 * no webhook, bank or partner-chosen outbound activity. Only the configured DATABASE_URL and TEMPORAL_ADDRESS; never migrates.
 */
import { Client } from '@temporalio/client';
import { InvalidSettingsError } from '../core/settings';
import type { Settings } from '../core/settings';
import { DEPOSIT_KEY_FAMILIES } from '../core/deposit-addresses';
import { DEPOSIT_SEED_VARIABLES, DEPOSIT_XPUB_VARIABLES } from './deposit-keys';
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
import { startSweeperWorker, sweptNetworks } from '../worker/sweeper-worker';
import { depositSigningKeys } from '../core/deposit-seed';

async function main(): Promise<void> {
  // The seeds leave this process's environment once read (core/settings/load.ts).
  const settings = loadProcessSettings();
  // First, from the settings alone, before connecting anywhere.
  requireXpubBesideEachSeed(settings);
  const log = mainLogger('sweeper', settings);
  const listeners = workerListeners(settings.workerObservability, settings.workerObservability.host);
  installTemporalRuntime({ log, metricsBindAddress: listeners.sdkMetricsBindAddress });
  const { databaseUrl, temporalAddress } = requireProductionConnections(settings);
  await assertAppDatabaseReady(databaseUrl);
  // The account keys are derived here; what runs on holds them, not the seeds (nor the settings that carried them).
  const keys = depositSigningKeys(settings.depositKeys.seeds);
  const { swept } = sweptNetworks(settings, keys);
  if (swept.length === 0)
    log.warn('nothing to sweep: no network has both its node (EVM_RPC_URL_…, UTXO_RPC_URL_…) and its deposit seed here');
  const { connection, close: closeConnection } = await connectClosable(temporalConnectionOptions(temporalAddress, settings.temporal));
  const client = new Client({ connection, namespace: settings.temporalNamespace, dataConverter: temporalDataConverter(settings.temporal) });
  const taskQueue = settings.temporalSweeperTaskQueue;
  await ensureSweepers(client, taskQueue, swept, log);
  await closeConnection();
  const sweeper = await startSweeperWorker({
    databaseUrl,
    temporalAddress,
    namespace: settings.temporalNamespace,
    taskQueue,
    log,
    settings: {
      evmNetworks: settings.evmNetworks,
      utxoNetworks: settings.utxoNetworks,
      databaseTimeouts: settings.databaseTimeouts,
      temporal: settings.temporal,
      sweeps: settings.sweeps,
    },
    keys,
    http: listeners.http,
  });
  if (sweeper.httpUrl) log.info(`sweeper health and metrics on ${sweeper.httpUrl}`);
  onShutdownSignal(log, () => sweeper.stop());
}

/**
 * Each seed beside its family's xpub, which partners' addresses derive from: the settings check the two agree (load.ts), so
 * a seed that is not the addresses' is refused at start instead of leaving every deposit unswept.
 */
function requireXpubBesideEachSeed(settings: Settings): void {
  const missing = DEPOSIT_KEY_FAMILIES.filter(
    (family) => settings.depositKeys.seeds[family] !== undefined && settings.depositKeys[`${family}PublicKey`] === undefined,
  );
  if (missing.length === 0) return;
  throw new InvalidSettingsError(
    missing.map(
      (family) =>
        `${DEPOSIT_SEED_VARIABLES[family]} is set without ${DEPOSIT_XPUB_VARIABLES[family]}: give the sweeper the account key partners' addresses derive from, so a seed that is not theirs is refused`,
    ),
  );
}

main().catch(exitOnFailure([InvalidSettingsError]));
