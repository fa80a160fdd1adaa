/**
 * `npm start`: the whole service on one machine from nothing. Infrastructure (embedded Postgres
 * and a Temporal dev server unless configured), migrations, the demo partner, the worker and the
 * API, in this process and its children; Ctrl-C stops them all.
 */
import { Client, Connection } from '@temporalio/client';
import { startApi } from '../api/server';
import { openOrm } from '../db/orm';
import { ensureDemoPartner } from './demo-partner';
import { startInfrastructure } from '../dev/infrastructure';
import {
  loadProcessSettings,
  loadWorkerObservabilitySettings,
  mainLogger,
  onShutdownSignal,
  sdkMetricsBindAddress,
} from './process-support';
import { installTemporalRuntime } from '../worker/temporal-runtime';
import { ensureReconciliationSchedule } from '../worker/reconciliation-schedule';
import { ensureWebhookDispatcher } from '../worker/webhook-dispatcher';
import { startWorker } from '../worker/worker';

/** What this process started, stopped in reverse order on Ctrl-C or on a failed start. */
const stops: Array<() => Promise<void>> = [];

async function stopAll(): Promise<void> {
  for (const stop of stops.splice(0).reverse()) await stop().catch((error: unknown) => process.stderr.write(`${String(error)}\n`));
}

async function main(): Promise<void> {
  const settings = loadProcessSettings();
  // A person watches this terminal: pretty lines (production entries write JSON).
  const log = mainLogger('start', settings, 'pretty');
  const observability = loadWorkerObservabilitySettings();
  installTemporalRuntime({ log, metricsBindAddress: sdkMetricsBindAddress(observability) });
  onShutdownSignal(log, stopAll);
  const infrastructure = await startInfrastructure(settings, { ui: true, log });
  stops.push(() => infrastructure.stop());

  const orm = await openOrm(infrastructure.databaseUrl, 2);
  const demo = await ensureDemoPartner(orm, settings.development.dataDir);
  await orm.close(true);

  const connection = await Connection.connect({ address: infrastructure.temporalAddress });
  const client = new Client({ connection, namespace: settings.temporalNamespace });
  await ensureReconciliationSchedule(client, settings.temporalTaskQueue, log);
  await ensureWebhookDispatcher(client, settings.temporalTaskQueue, log);
  await connection.close();

  const worker = await startWorker({
    databaseUrl: infrastructure.databaseUrl,
    temporalAddress: infrastructure.temporalAddress,
    namespace: settings.temporalNamespace,
    taskQueue: settings.temporalTaskQueue,
    log,
    settings,
    ...(observability.httpPort === 0 ? {} : { httpPort: observability.httpPort }),
  });
  stops.push(() => worker.stop());
  const api = await startApi({
    ...settings,
    databaseUrl: infrastructure.databaseUrl,
    temporalAddress: infrastructure.temporalAddress,
    log,
  });
  stops.push(() => api.stop());

  process.stdout.write(
    [
      '',
      `API:              ${api.url}`,
      `Temporal Web UI:  ${infrastructure.temporalUiUrl ?? '(configured Temporal: see its own UI)'}`,
      `Metrics:          ${api.url}/metrics${worker.httpUrl ? `, ${worker.httpUrl}/metrics (worker)` : ''}${observability.sdkMetricsPort ? `, http://127.0.0.1:${observability.sdkMetricsPort}/metrics (Temporal SDK)` : ''}`,
      `Demo API key:     ${demo.apiKey}`,
      '',
      `Try: curl -H "Authorization: Bearer ${demo.apiKey}" ${api.url}/v1/partner/balances`,
      'Ctrl-C stops everything.',
      '',
    ].join('\n'),
  );
}

main().catch(async (error: unknown) => {
  process.stderr.write(`${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
  await stopAll();
  process.exit(1);
});
