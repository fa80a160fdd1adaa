import { AsyncLocalStorage } from 'node:async_hooks';
import pino from 'pino';
import pretty from 'pino-pretty';

/** Structured fields of a log line (`{ requestId, durationMs }`); never a request body. */
export type LogFields = Record<string, unknown>;

/** Logs go to stderr, always: stdout belongs to command output (the operator CLI prints JSON there). */
export interface Logger {
  debug(message: string, fields?: LogFields): void;
  info(message: string, fields?: LogFields): void;
  warn(message: string, fields?: LogFields): void;
  error(message: string, fields?: LogFields): void;
  child(bindings: LogFields): Logger;
}

export const LOG_LEVELS = ['debug', 'info', 'warn', 'error'] as const;
export type LogLevel = (typeof LOG_LEVELS)[number];

/** JSON lines for machines (`npm run api`, `npm run worker`), pretty lines for people (`npm start`, tests, the CLI). */
export type LogFormat = 'json' | 'pretty';

export interface LoggerOptions {
  format?: LogFormat;
  /** Where lines go instead of stderr (tests capture them). */
  destination?: NodeJS.WritableStream;
}

/**
 * Fields carrying secrets or personal data (DESIGN.md), censored at the top level and one level down.
 * Messages cannot be censored: they must never carry such values.
 */
const SENSITIVE_KEYS = [
  'apiKey',
  'authorization',
  'cookie',
  'password',
  'secret',
  'token',
  // Key material: the deposit seed (and its settings group), a mnemonic, any private key.
  'seed',
  'seeds',
  'accountKey',
  'xpriv',
  'depositKeys',
  'mnemonic',
  'privateKey',
  'iban',
  'destinationIban',
  'creditorIban',
  'debtorIban',
  'name',
  'firstName',
  'lastName',
  'receiverFirstName',
  'receiverLastName',
  'companyName',
  'beneficiaryName',
  'email',
  'address',
  'addressLine',
  'city',
  'walletAddress',
  'documentNumber',
  'pesel',
  'birthDate',
  'memo',
  'ivms101',
  'originator',
  'beneficiary',
] as const;

export const REDACTED_PATHS: readonly string[] = [
  // A top-level `name` is the logger's own (pino's binding): only nested names are censored.
  ...SENSITIVE_KEYS.flatMap((key) => (key === 'name' ? [`*.${key}`] : [key, `*.${key}`])),
  'req.headers.authorization',
  'req.headers.cookie',
  'headers.authorization',
];

/** Fields (a request id, a workflow) every line inside `withLogContext` carries, whichever logger writes it. */
const context = new AsyncLocalStorage<LogFields>();

export function withLogContext<T>(fields: LogFields, run: () => T): T {
  return context.run({ ...context.getStore(), ...fields }, run);
}

/** The fields of the current log context (empty outside one). */
export function currentLogContext(): Readonly<LogFields> {
  return context.getStore() ?? {};
}

export function createLogger(name: string, minimumLevel: LogLevel = 'info', options: LoggerOptions = {}): Logger {
  const format = options.format ?? 'pretty';
  const destination =
    format === 'pretty'
      ? pretty({
          destination: options.destination ?? 2,
          sync: true,
          colorize: options.destination === undefined && process.stderr.isTTY,
          translateTime: 'SYS:HH:MM:ss.l',
          // One line per entry, fields inline: a terminal scrolls past a request a line at a time.
          singleLine: true,
          ignore: 'pid,hostname',
        })
      : (options.destination ?? pino.destination({ dest: 2, sync: true }));
  const root = pino(
    {
      name,
      level: minimumLevel,
      redact: { paths: [...REDACTED_PATHS], censor: '[redacted]' },
      // Level names, not numbers, and ISO times: a line reads the same in a file and in a log store.
      formatters: { level: (label) => ({ level: label }) },
      timestamp: pino.stdTimeFunctions.isoTime,
      mixin: () => context.getStore() ?? {},
    },
    destination,
  );
  return wrap(root);
}

function wrap(logger: pino.Logger): Logger {
  const at =
    (level: LogLevel) =>
    (message: string, fields?: LogFields): void => {
      if (fields === undefined) logger[level](message);
      else logger[level](fields, message);
    };
  return {
    debug: at('debug'),
    info: at('info'),
    warn: at('warn'),
    error: at('error'),
    child: (bindings) => wrap(logger.child(bindings)),
  };
}

/** An error as log fields, its stack only where a person reads it (`class`, not `name`: nested names are censored). */
export function errorFields(error: unknown, withStack = true): LogFields {
  if (!(error instanceof Error)) return { error: { message: String(error) } };
  const type = (error as { type?: unknown }).type;
  return {
    error: {
      class: error.name,
      ...(typeof type === 'string' ? { type } : {}),
      message: error.message,
      ...(withStack && error.stack ? { stack: error.stack } : {}),
    },
  };
}
