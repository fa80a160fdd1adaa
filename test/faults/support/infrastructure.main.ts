/**
 * One piece of the fault campaign's infrastructure as a process of its own, so the campaign can
 * SIGKILL it (its whole process group: this process, and the database or server it started)
 * and start it again on the same files and port:
 *   tsx test/faults/support/infrastructure.main.ts postgres <dataDir> <port>
 *   tsx test/faults/support/infrastructure.main.ts temporal <dataDir> <port>
 * Postgres is the project's embedded one (dev/embedded-postgres.ts, its files in dataDir/postgres;
 * a restart after a kill runs crash recovery), Temporal the dev server (dev/temporal-dev-server.ts,
 * its SQLite file dataDir/temporal.db, so a restart keeps every workflow). Prints one line
 * `READY <address>` once it serves; SIGTERM or the end of stdin (the campaign gone) stop it.
 */
import path from 'node:path';
import { LOOPBACK } from '../../../core/listen-address';
import { createLogger } from '../../../core/logger';
import { loadSettings } from '../../../core/settings';
import { ensurePostgres } from '../../../dev/embedded-postgres';
import { ensureTemporal } from '../../../dev/temporal-dev-server';

async function main(): Promise<void> {
  const [kind, dataDir, portText] = process.argv.slice(2);
  const port = Number(portText);
  if (!dataDir || !Number.isInteger(port) || (kind !== 'postgres' && kind !== 'temporal')) {
    throw new Error('usage: infrastructure.main.ts postgres|temporal <dataDir> <port>');
  }
  const log = createLogger(`faults-${kind}`, 'info', { format: 'json' });
  const running =
    kind === 'postgres'
      ? await ensurePostgres({ configured: undefined, dataDir, port, host: LOOPBACK, log })
      : await ensureTemporal({
          temporalAddress: undefined,
          temporalCliPath: loadSettings(process.env, path.resolve(__dirname, '../../..')).development.temporalCliPath,
          namespace: 'default',
          dataDir,
          host: LOOPBACK,
          port,
          uiPort: 0,
          ui: false,
          log,
        });
  // Postgres: its superuser, from which the campaign prepares the roles (FaultStack.start).
  const address = 'urls' in running ? running.urls.adminUrl! : running.address;
  let stopping = false;
  const stop = () => {
    if (stopping) return;
    stopping = true;
    running.stop().then(
      () => process.exit(0),
      () => process.exit(1),
    );
  };
  process.on('SIGTERM', stop);
  process.on('SIGINT', stop);
  process.stdin.on('end', stop);
  process.stdin.resume();
  process.stdout.write(`READY ${address}\n`);
}

main().catch((error: unknown) => {
  process.stderr.write(`${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
  process.exit(1);
});
