import type { Logger } from '../../core/logger';

/** A Logger that keeps each line as "level message", for unit tests that assert what was said. */
export function recordingLog(): Logger & { lines: string[]; at(level: 'debug' | 'info' | 'warn' | 'error'): string[] } {
  const lines: string[] = [];
  const log = {
    lines,
    at: (level: string) => lines.filter((line) => line.startsWith(`${level} `)).map((line) => line.slice(level.length + 1)),
    debug: (message: string) => lines.push(`debug ${message}`),
    info: (message: string) => lines.push(`info ${message}`),
    warn: (message: string) => lines.push(`warn ${message}`),
    error: (message: string) => lines.push(`error ${message}`),
    child: () => log,
  };
  return log;
}
