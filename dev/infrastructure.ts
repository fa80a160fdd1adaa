import type { Logger } from '../core/logger';
import type { Settings } from '../core/settings';
import { migrate } from '../db/orm';
import { ensurePostgres } from './embedded-postgres';
import { ensureTemporal } from './temporal-dev-server';

export interface Infrastructure {
  databaseUrl: string;
  temporalAddress: string;
  temporalUiUrl: string | undefined;
  /** Stops what this process started, Temporal first (it may still be talking to the worker). */
  stop(): Promise<void>;
}

/**
 * Brings up everything the service needs on one machine: Postgres (configured or embedded)
 * with migrations applied, and Temporal (configured, or a dev server with the Web UI).
 */
export async function startInfrastructure(
  settings: Settings,
  options: { ui: boolean; uiCodecEndpoint?: string; log: Logger },
): Promise<Infrastructure> {
  const { development } = settings;
  const [postgres, temporal] = await Promise.all([
    ensurePostgres({
      databaseUrl: settings.databaseUrl,
      dataDir: development.dataDir,
      port: development.embeddedPostgresPort,
      log: options.log,
    }),
    ensureTemporal({
      temporalAddress: settings.temporalAddress,
      temporalCliPath: development.temporalCliPath,
      namespace: settings.temporalNamespace,
      dataDir: development.dataDir,
      port: development.temporalPort,
      uiPort: development.temporalUiPort,
      ui: options.ui,
      ...(options.uiCodecEndpoint ? { uiCodecEndpoint: options.uiCodecEndpoint } : {}),
      log: options.log,
    }),
  ]);
  const applied = await migrate(postgres.url);
  if (applied.length > 0) options.log.info(`applied migrations: ${applied.join(', ')}`);
  return {
    databaseUrl: postgres.url,
    temporalAddress: temporal.address,
    temporalUiUrl: temporal.uiUrl,
    async stop() {
      await temporal.stop();
      await postgres.stop();
    },
  };
}
