import { LOG_LEVELS } from '../../logger';
import { setting } from '../setting';
import { oneOf, portOrOff } from '../values';

/** What every process logs, and where the worker serves what operators scrape. */
export const PROCESS_SETTINGS = {
  logLevel: setting(
    'LOG_LEVEL',
    oneOf(LOG_LEVELS, 'info'),
    '`debug`, `info`, `warn` or `error`; logs go to stderr (JSON lines from `npm run api`/`worker`, pretty under `npm start`)',
  ),
  workerObservability: {
    /** The Temporal SDK's own Prometheus exporter (worker task latencies, slots, polls). */
    sdkMetricsPort: setting(
      'WORKER_METRICS_PORT',
      portOrOff(9464),
      "the worker's Temporal SDK Prometheus exporter (`0.0.0.0:PORT/metrics`); `0` turns it off",
    ),
    httpPort: setting('WORKER_HTTP_PORT', portOrOff(9465), "the worker's `/health/live`, `/health/ready` and `/metrics`; `0` turns it off"),
  },
};
