import type { Logger } from '../../core/logger';
import type { Settings } from '../../core/settings';
import { startInfrastructure } from '../../dev/infrastructure';
import { ensureTemporal } from '../../dev/temporal-dev-server';
import type { Infrastructure } from '../../dev/infrastructure';
import { freeClusterPorts, startClusterInfrastructure } from '../../dev/temporal-cluster';

/** Which Temporal the stack tiers run on: the dev server (default) or the production topology. */
export type TestTemporal = 'dev-server' | 'cluster';

export function testTemporal(env: Readonly<Record<string, string | undefined>> = process.env): TestTemporal {
  const value = env.TEST_TEMPORAL || 'dev-server';
  if (value !== 'dev-server' && value !== 'cluster')
    throw new Error(`TEST_TEMPORAL must be dev-server or cluster, got ${JSON.stringify(value)}`);
  return value;
}

/**
 * The run's Postgres and Temporal. TEST_TEMPORAL=cluster (`npm run test:cluster`) runs the real
 * Temporal server on the run's Postgres, as `npm run start:cluster` does, on free ports and in
 * the stack's process group (so the teardown's last resort kills it too); nothing else changes.
 */
export async function startTestInfrastructure(settings: Settings, log: Logger): Promise<Infrastructure> {
  if (testTemporal() === 'dev-server') return startInfrastructure(settings, { ui: false, log });
  return startClusterInfrastructure(settings, { ports: await freeClusterPorts(), ownProcessGroup: false, log });
}

/**
 * What a run needs: `temporal` when only the workflow tier runs (its activities are mocked, so no
 * Postgres and no service worker), `full` otherwise. jest.config.js decides from the command line.
 */
export type TestStackScope = 'full' | 'temporal';

export function testStackScope(env: Readonly<Record<string, string | undefined>> = process.env): TestStackScope {
  // The cluster keeps its own data in Postgres: it always needs the database.
  return env.TEST_STACK_SCOPE === 'temporal' && testTemporal(env) === 'dev-server' ? 'temporal' : 'full';
}

/** Only the Temporal dev server, for the workflow tier on its own. */
export async function startTemporalOnly(settings: Settings, log: Logger): Promise<{ temporalAddress: string; stop(): Promise<void> }> {
  const { development } = settings;
  const temporal = await ensureTemporal({
    temporalAddress: undefined,
    temporalCliPath: development.temporalCliPath,
    namespace: settings.temporalNamespace,
    dataDir: development.dataDir,
    host: development.host,
    port: development.temporalPort,
    uiPort: development.temporalUiPort,
    ui: false,
    log,
  });
  return { temporalAddress: temporal.address, stop: () => temporal.stop() };
}
