import path from 'node:path';
import { createLogger } from '../core/logger';
import type { Logger } from '../core/logger';
import { loadSettings } from '../core/settings';
import type { Settings } from '../core/settings';

export const PROJECT_ROOT = path.resolve(__dirname, '..');

export function loadProcessSettings(): Settings {
  return loadSettings(process.env, PROJECT_ROOT);
}

/** A terminal's Ctrl-C reaches tsx and its child at once (one relayed, one direct): not an insist. */
const REPEATED_SIGNAL_GRACE_MS = 3_000;

/**
 * Runs `cleanup` once on SIGINT/SIGTERM, then exits. A signal repeated after the grace period
 * exits at once (the operator insists); one inside it is the same Ctrl-C arriving twice.
 */
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

export function requireSetting<T>(value: T | undefined, name: string): T {
  if (value === undefined) throw new Error(`${name} must be set for this entry point`);
  return value;
}

export function mainLogger(name: string, settings: Settings): Logger {
  return createLogger(name, settings.logLevel);
}
