import type { Logger } from '../core/logger';
import type { Settings } from '../core/settings';
import { prepareDatabase } from '../db/database-setup';
import { configuredDatabaseUrls, ensurePostgres } from './embedded-postgres';
import { ensureTemporal } from './temporal-dev-server';

export interface Infrastructure {
  /** payments_app: what the API, the worker, the sweeper (and the tests' fixtures) connect as. */
  databaseUrl: string;
  /** payments_ops: what `npm run ops` connects as; undefined on a configured database (the operator's DATABASE_URL says). */
  opsDatabaseUrl: string | undefined;
  /** A role that may do anything (the embedded superuser), for what only a test or the bench does; undefined when configured without one. */
  databaseAdminUrl: string | undefined;
  temporalAddress: string;
  temporalUiUrl: string | undefined;
  /** Stops what this process started, Temporal first (it may still be talking to the worker). */
  stop(): Promise<void>;
}

/**
 * Brings up everything the service needs on one machine: Postgres (configured or embedded) with
 * its roles and migrations as production has them (db/database-setup.ts), and Temporal
 * (configured, or a dev server with the Web UI).
 */
export async function startInfrastructure(
  settings: Settings,
  options: { ui: boolean; uiCodecEndpoint?: string; postgresFlags?: readonly string[]; log: Logger },
): Promise<Infrastructure> {
  const { development } = settings;
  const [postgres, temporal] = await Promise.all([
    ensurePostgres({
      configured: configuredDatabaseUrls(settings),
      dataDir: development.dataDir,
      port: development.embeddedPostgresPort,
      host: development.host,
      ...(options.postgresFlags ? { extraFlags: options.postgresFlags } : {}),
      log: options.log,
    }),
    ensureTemporal({
      temporalAddress: settings.temporalAddress,
      temporalCliPath: development.temporalCliPath,
      namespace: settings.temporalNamespace,
      dataDir: development.dataDir,
      host: development.host,
      port: development.temporalPort,
      uiPort: development.temporalUiPort,
      ui: options.ui,
      ...(options.uiCodecEndpoint ? { uiCodecEndpoint: options.uiCodecEndpoint } : {}),
      log: options.log,
    }),
  ]);
  return migratedInfrastructure(postgres, temporal, options.log);
}

/**
 * Applies the migrations once Postgres and Temporal run, and hands both back as one; stops both
 * if the database cannot be prepared. Shared with the cluster (dev/temporal-cluster.ts).
 */
export async function migratedInfrastructure(
  postgres: Awaited<ReturnType<typeof ensurePostgres>>,
  temporal: { address: string; uiUrl: string | undefined; stop(): Promise<void> },
  log: Logger,
): Promise<Infrastructure> {
  const stop = async () => {
    await temporal.stop();
    await postgres.stop();
  };
  try {
    const applied = await prepareDatabase(postgres.urls);
    if (applied.length > 0) log.info(`applied migrations: ${applied.join(', ')}`);
  } catch (error) {
    await stop();
    throw error;
  }
  return {
    databaseUrl: postgres.urls.appUrl,
    opsDatabaseUrl: postgres.urls.opsUrl,
    databaseAdminUrl: postgres.urls.adminUrl,
    temporalAddress: temporal.address,
    temporalUiUrl: temporal.uiUrl,
    stop,
  };
}
