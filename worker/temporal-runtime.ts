import type { LogLevel as SdkLogLevel, LogMetadata, Logger as SdkLogger } from '@temporalio/common';
import { Runtime, makeTelemetryFilterString } from '@temporalio/worker';
import { errorFields } from '../core/logger';
import type { LogFields, Logger } from '../core/logger';

export interface TemporalRuntimeOptions {
  log: Logger;
  /** host:port of the SDK's own Prometheus exporter (task slots, polls, workflow task latencies); absent, none. */
  metricsBindAddress?: string;
}

/** Once per process, before any worker or native connection: the SDK's, its core's and workflows' logs go through ours. */
export function installTemporalRuntime(options: TemporalRuntimeOptions): void {
  Runtime.install({
    logger: new SdkLogAdapter(options.log.child({ component: 'temporal' })),
    telemetryOptions: {
      // Core's own info lines are the SDK's internals; its warnings are worth reading.
      logging: { filter: makeTelemetryFilterString({ core: 'WARN', other: 'ERROR' }), forward: {} },
      ...(options.metricsBindAddress ? { metrics: { prometheus: { bindAddress: options.metricsBindAddress } } } : {}),
    },
  });
}

const LEVELS = { DEBUG: 'debug', INFO: 'info', WARN: 'warn', ERROR: 'error' } as const;

/** The SDK's Logger over ours, without TRACE; stacks only at warn and error (at debug a failure is BENIGN). */
export class SdkLogAdapter implements SdkLogger {
  constructor(private readonly target: Logger) {}

  log(level: SdkLogLevel, message: string, meta?: LogMetadata): void {
    if (level !== 'TRACE') this.target[LEVELS[level]](message, fieldsOf(meta, level === 'WARN' || level === 'ERROR'));
  }

  trace(message: string, meta?: LogMetadata): void {
    this.log('TRACE', message, meta);
  }
  debug(message: string, meta?: LogMetadata): void {
    this.log('DEBUG', message, meta);
  }
  info(message: string, meta?: LogMetadata): void {
    this.log('INFO', message, meta);
  }
  warn(message: string, meta?: LogMetadata): void {
    this.log('WARN', message, meta);
  }
  error(message: string, meta?: LogMetadata): void {
    this.log('ERROR', message, meta);
  }
}

/** String keys only (the SDK's timestamp rides on a symbol); errors as `{ name, type, message, stack? }`. */
function fieldsOf(meta: LogMetadata | undefined, withStack: boolean): LogFields | undefined {
  if (!meta) return undefined;
  const fields: LogFields = {};
  for (const [key, value] of Object.entries(meta)) {
    if (value instanceof Error)
      Object.assign(fields, key === 'error' ? errorFields(value, withStack) : { [key]: errorFields(value, withStack).error });
    else fields[key] = value;
  }
  return fields;
}
