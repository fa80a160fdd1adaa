import type { LogLevel as SdkLogLevel, LogMetadata, Logger as SdkLogger } from '@temporalio/common';
import { Runtime, makeTelemetryFilterString } from '@temporalio/worker';
import { errorFields } from '../core/logger';
import type { LogFields, Logger } from '../core/logger';

export interface TemporalRuntimeOptions {
  log: Logger;
  /** host:port of the SDK's own Prometheus exporter (task slots, polls, workflow task latencies); absent, none. */
  metricsBindAddress?: string;
}

/**
 * Installs the Temporal SDK's runtime once per process, before any worker or native connection
 * (a worker process, or `npm start`, which runs the worker beside the API): the SDK's log lines,
 * its native core's warnings and the workflows' `log` calls go through our logger, as JSON or
 * pretty like every other line. The API's client uses no native runtime and logs nothing itself.
 */
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

/**
 * The SDK's Logger over ours. TRACE is dropped (the SDK's step-by-step internals). An error in
 * the metadata keeps its stack only at warn and error: at debug it is an expected outcome (a
 * BENIGN failure: a refusal, an answer not there yet) and one line says enough.
 */
export class SdkLogAdapter implements SdkLogger {
  constructor(private readonly target: Logger) {}

  log(level: SdkLogLevel, message: string, meta?: LogMetadata): void {
    if (level === 'TRACE') return;
    const fields = fieldsOf(meta, level === 'WARN' || level === 'ERROR');
    switch (level) {
      case 'DEBUG':
        return this.target.debug(message, fields);
      case 'INFO':
        return this.target.info(message, fields);
      case 'WARN':
        return this.target.warn(message, fields);
      case 'ERROR':
        return this.target.error(message, fields);
    }
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
