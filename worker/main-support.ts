import path from 'node:path';
import { createLogger } from '../core/logger';
import type { Logger } from '../core/logger';
import { loadSettings } from '../core/settings';
import type { Settings } from '../core/settings';

export const PROJECT_ROOT = path.resolve(__dirname, '..');

export function loadProcessSettings(): Settings {
  return loadSettings(process.env, PROJECT_ROOT);
}

/** Runs `cleanup` once on SIGINT/SIGTERM, then exits; a second signal exits at once. */
export function onShutdownSignal(log: Logger, cleanup: () => Promise<void>): void {
  let stopping = false;
  const handler = (signal: NodeJS.Signals): void => {
    if (stopping) process.exit(130);
    stopping = true;
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
