import { DefaultLogger, Runtime, makeTelemetryFilterString } from '@temporalio/worker';

let quieted = false;

/**
 * Workers in a test process log expected retries (faults a test injects) and mocked failures by
 * design, which would flood the output: the SDK and its core log errors only. The runtime is
 * installed once per process, before the first worker or native connection.
 */
export function quietSdkLogs(): void {
  if (quieted) return;
  quieted = true;
  try {
    Runtime.install({
      logger: new DefaultLogger('ERROR'),
      telemetryOptions: { logging: { filter: makeTelemetryFilterString({ core: 'ERROR' }), forward: {} } },
    });
  } catch {
    // Installed already by another test file in this jest worker: keep that one.
  }
}
