/** Logs go to stderr, always: stdout belongs to command output (the operator CLI prints JSON there). */
export interface Logger {
  debug(message: string): void;
  info(message: string): void;
  warn(message: string): void;
  error(message: string): void;
}

const LEVELS = ['debug', 'info', 'warn', 'error'] as const;
type Level = (typeof LEVELS)[number];

export function createLogger(name: string, minimumLevel: Level = 'info'): Logger {
  const threshold = LEVELS.indexOf(minimumLevel);
  const write = (level: Level, message: string): void => {
    if (LEVELS.indexOf(level) < threshold) return;
    process.stderr.write(`${new Date().toISOString()} ${level.padEnd(5)} [${name}] ${message}\n`);
  };
  return {
    debug: (message) => write('debug', message),
    info: (message) => write('info', message),
    warn: (message) => write('warn', message),
    error: (message) => write('error', message),
  };
}
