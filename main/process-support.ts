import path from 'node:path';
import { createLogger } from '../core/logger';
import type { LogFormat, Logger } from '../core/logger';
import { railDeclarationProblems, railsKnownTo } from '../core/rails';
import type { Rail } from '../core/rails';
import { secretWeakness } from '../core/secret-strength';
import { InvalidSettingsError, loadProcessEnvironment } from '../core/settings';
import { joinHostPort } from '../core/listen-address';
import type { ListenAddress, Settings, WorkerObservabilitySettings } from '../core/settings';

export const PROJECT_ROOT = path.resolve(__dirname, '..');

/** This process's settings; its secrets may come from files and leave its environment once read (core/settings/load.ts). */
export function loadProcessSettings(): Settings {
  return loadProcessEnvironment(process.env, PROJECT_ROOT);
}

/** A terminal's Ctrl-C reaches tsx and its child at once (one relayed, one direct): not an insist. */
const REPEATED_SIGNAL_GRACE_MS = 3_000;

/** Runs `cleanup` once on SIGINT/SIGTERM, then exits; a signal repeated after the grace period exits at once. */
export function onShutdownSignal(log: Logger, cleanup: () => Promise<void>): void {
  let stoppingSinceMs: number | undefined;
  const handler = (signal: NodeJS.Signals): void => {
    if (stoppingSinceMs !== undefined) {
      if (Date.now() - stoppingSinceMs > REPEATED_SIGNAL_GRACE_MS) process.exit(130);
      return;
    }
    stoppingSinceMs = Date.now();
    log.info(`${signal}: stopping`);
    cleanup().then(
      () => process.exit(0),
      (error: unknown) => {
        log.error(`shutdown failed: ${String(error)}`);
        process.exit(1);
      },
    );
  };
  process.on('SIGINT', handler);
  process.on('SIGTERM', handler);
}

/**
 * What a production entry point connects to, each required: DATABASE_URL, TEMPORAL_ADDRESS, and PAYLOAD_ENCRYPTION_KEYS,
 * since production never writes what partners sent to Temporal in clear (docs/architecture.md, "Payload encryption").
 */
export function requireProductionConnections(settings: Settings): { databaseUrl: string; temporalAddress: string } {
  const databaseUrl = requireSetting(settings.databaseUrl, 'DATABASE_URL');
  const temporalAddress = requireSetting(settings.temporalAddress, 'TEMPORAL_ADDRESS');
  requireSetting(settings.temporal.payloadKeys, 'PAYLOAD_ENCRYPTION_KEYS');
  return { databaseUrl, temporalAddress };
}

export function requireSetting<T>(value: T | undefined, name: string): T {
  if (value === undefined) throw new Error(`${name} must be set for this entry point`);
  return value;
}

/** A secret guarding a door (CODEC_ENDPOINT_TOKEN): set and strong; the refusal names the variable, never the value. */
export function requireStrongSecret(value: string | undefined, name: string): string {
  const secret = requireSetting(value, name);
  const weakness = secretWeakness(secret);
  if (weakness !== undefined) throw new InvalidSettingsError([`${name} ${weakness}`]);
  return secret;
}

/** Deposit seeds are the sweeper's alone (`npm run sweeper`): any other entry point given one refuses to start. */
export function refuseDepositSeeds(settings: Settings, who: string): void {
  const given = Object.entries(settings.depositKeys.seeds).filter(([, seed]) => seed !== undefined);
  if (given.length === 0) return;
  const variables = given.map(([family]) => `${family.toUpperCase()}_DEPOSIT_SEED`);
  throw new InvalidSettingsError([
    `${variables.join(', ')} ${variables.length === 1 ? 'is' : 'are'} set: ${who} never holds deposit seeds; give them to \`npm run sweeper\` only (docs/production.md, "Deposit keys")`,
  ]);
}

/**
 * A production entry point simulates exactly the rails SIMULATED_RAILS names (core/rails.ts), checked before anything is
 * connected. Returns the rails this process simulates, to say so (logs, health, metrics).
 */
export function requireDeclaredRails(settings: Settings, role: 'worker' | 'api'): readonly Rail[] {
  const view = railsKnownTo(settings, role);
  const problems = railDeclarationProblems(view, settings.acceptedSimulatedRails);
  if (problems.length > 0) throw new RailDeclarationError(problems);
  // The API cannot tell an EVM network the worker simulates from a real one: it reports what was declared.
  return role === 'worker' ? view.simulated : settings.acceptedSimulatedRails;
}

export class RailDeclarationError extends Error {
  constructor(readonly problems: readonly string[]) {
    super(problems.join('\n'));
    this.name = 'RailDeclarationError';
  }
}

/** Ends a failed start: a refusal (one of `refusals`) is a message, not a bug, so no stack; then `cleanup`. */
export function exitOnFailure(refusals: ReadonlyArray<abstract new (...args: never[]) => Error>, cleanup?: () => Promise<void>) {
  return async (error: unknown): Promise<void> => {
    const refusal = refusals.some((type) => error instanceof type);
    process.stderr.write(
      `${refusal ? (error as Error).message : error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`,
    );
    await cleanup?.();
    process.exit(1);
  };
}

/** JSON lines by default (what a log store reads); `npm start` asks for pretty lines. */
export function mainLogger(name: string, settings: Settings, format: LogFormat = 'json'): Logger {
  return createLogger(name, settings.logLevel, { format });
}

/** The worker's two listeners on `host` (WORKER_HOST, or HOST under `npm start`); port 0 turns either off. */
export function workerListeners(
  { sdkMetricsPort, httpPort }: WorkerObservabilitySettings,
  host: string,
): { sdkMetricsBindAddress?: string; http?: ListenAddress } {
  return {
    ...(sdkMetricsPort === 0 ? {} : { sdkMetricsBindAddress: joinHostPort(host, sdkMetricsPort) }),
    ...(httpPort === 0 ? {} : { http: { port: httpPort, host } }),
  };
}
