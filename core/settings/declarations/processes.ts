import { LOG_LEVELS } from '../../logger';
import { setting } from '../setting';
import { oneOf, optionalIpAddress, portOrOff } from '../values';

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
      "the worker's (and the sweeper's, in its own environment) Temporal SDK Prometheus exporter (`WORKER_HOST:PORT/metrics`); `0` turns it off",
    ),
    httpPort: setting(
      'WORKER_HTTP_PORT',
      portOrOff(9465),
      "the worker's (and the sweeper's) `/health/live`, `/health/ready` and `/metrics`; `0` turns it off",
    ),
    // No default here: unset, `npm run worker` binds every interface (Prometheus and the orchestrator's probes come from outside) and `npm start` HOST (load.ts).
    host: setting('WORKER_HOST', optionalIpAddress(), "the interface of the worker's (and the sweeper's) two listeners", {
      shownDefault: '`0.0.0.0` (`npm start`, `npm run start:cluster`: `HOST`)',
    }),
  },
};
