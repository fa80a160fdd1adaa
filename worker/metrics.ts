import { ApplicationFailure, ApplicationFailureCategory, CancelledFailure } from '@temporalio/common';
import type { ActivityInterceptorsFactory, WorkerStatus } from '@temporalio/worker';
import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';
import type { DepositWatchMetrics } from '../activities/evm-deposit.activities';
import { RAILS } from '../core/rails';
import type { Rail } from '../core/rails';

/** Seconds; from a local database step to a polling window of minutes. */
const DURATION_BUCKETS_SECONDS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 300];

/** How an activity attempt ended; `not-yet` is an answer not given yet (retried by design), `failed` the one to watch. */
export type ActivityOutcome = 'completed' | 'refused' | 'not-yet' | 'cancelled' | 'failed';

export interface WorkerMetrics {
  readonly registry: Registry;
  /** Registered outermost on the worker: it sees each attempt's final failure, after the domain-error mapping. */
  readonly interceptor: ActivityInterceptorsFactory;
  observe(status: () => WorkerStatus): void;
  /** Counts a payload the codec refused (not encrypted with our key): someone wrote to Temporal without the API. */
  payloadRefused(): void;
  readonly deposits: DepositWatchMetrics;
}

/** The worker's own metrics, a registry per worker (the SDK exports its own on WORKER_METRICS_PORT). */
/** `simulatedRails` undefined: a worker that pays out on no rail (the sweeper) exports no rail gauge. */
export function createWorkerMetrics(options: { simulatedRails: readonly Rail[] | undefined }): WorkerMetrics {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry });
  // Every rail, 0 or 1: an alert on `== 1` also sees a rail that turns simulated after a deploy.
  const simulated = new Gauge({
    name: 'payments_rail_simulated',
    help: 'Whether this worker simulates the rail (1: no bank or chain moves its payments; SIMULATED_RAILS), 0 when it is real',
    labelNames: ['rail'] as const,
    registers: [registry],
  });
  const { simulatedRails } = options;
  if (simulatedRails) for (const rail of RAILS) simulated.set({ rail }, simulatedRails.includes(rail) ? 1 : 0);
  const attempts = new Counter({
    name: 'payments_worker_activity_attempts_total',
    help: 'Activity attempts by activity type and outcome (completed, refused, not-yet, cancelled, failed)',
    labelNames: ['activity_type', 'outcome'] as const,
    registers: [registry],
  });
  const duration = new Histogram({
    name: 'payments_worker_activity_duration_seconds',
    help: 'Duration of activity attempts by activity type',
    labelNames: ['activity_type'] as const,
    buckets: DURATION_BUCKETS_SECONDS,
    registers: [registry],
  });
  const unreadablePayloads = new Counter({
    name: 'payments_worker_payloads_refused_total',
    help: 'Temporal payloads refused because they were not encrypted with a configured key (or did not decrypt)',
    registers: [registry],
  });
  let status: (() => WorkerStatus) | undefined;
  new Gauge({
    name: 'payments_worker_in_flight',
    help: 'Workflow activations and activities the worker is running now',
    labelNames: ['kind'] as const,
    registers: [registry],
    collect() {
      if (!status) return;
      const current = status();
      this.set({ kind: 'workflow-activations' }, current.numInFlightWorkflowActivations);
      this.set({ kind: 'activities' }, current.numInFlightNonLocalActivities);
      this.set({ kind: 'local-activities' }, current.numInFlightLocalActivities);
    },
  });

  const deposits = depositWatchMetrics(registry);

  const interceptor: ActivityInterceptorsFactory = (context) => ({
    inbound: {
      async execute(input, next) {
        const activityType = context.info.activityType;
        const stopTimer = duration.startTimer({ activity_type: activityType });
        let outcome: ActivityOutcome = 'completed';
        try {
          return await next(input);
        } catch (error) {
          outcome = outcomeOf(error);
          throw error;
        } finally {
          stopTimer();
          attempts.inc({ activity_type: activityType, outcome });
        }
      },
    },
  });

  return {
    registry,
    interceptor,
    observe(read) {
      status = read;
    },
    payloadRefused() {
      unreadablePayloads.inc();
    },
    deposits,
  };
}

/** The deposit watchers' metrics, by network (and currency); the lag is set after every batch. */
function depositWatchMetrics(registry: Registry): DepositWatchMetrics {
  const seen = new Counter({
    name: 'payments_deposits_seen_total',
    help: "Crypto deposits recorded on chain (to a partner's deposit address), by network and currency",
    labelNames: ['network', 'currency'] as const,
    registers: [registry],
  });
  const credited = new Counter({
    name: 'payments_deposits_credited_total',
    help: 'Crypto deposits credited at their confirmations, by network and currency',
    labelNames: ['network', 'currency'] as const,
    registers: [registry],
  });
  const lag = new Gauge({
    name: 'payments_deposit_watcher_lag_blocks',
    help: "Blocks between the node's head and the last block the deposit watcher read, by network (after its latest batch)",
    labelNames: ['network'] as const,
    registers: [registry],
  });
  const rewound = new Counter({
    name: 'payments_deposit_watcher_rewound_blocks_total',
    help: 'Blocks the deposit watcher rewound because a reorganisation removed them, by network',
    labelNames: ['network'] as const,
    registers: [registry],
  });
  return {
    seen: (network, currency, count) => seen.inc({ network, currency }, count),
    credited: (network, currency, count) => credited.inc({ network, currency }, count),
    lag: (network, blocks) => lag.set({ network }, blocks),
    rewound: (network, blocks) => rewound.inc({ network }, blocks),
  };
}

function outcomeOf(error: unknown): ActivityOutcome {
  if (error instanceof CancelledFailure) return 'cancelled';
  if (error instanceof ApplicationFailure && error.category === ApplicationFailureCategory.BENIGN) {
    return error.nonRetryable ? 'refused' : 'not-yet';
  }
  return 'failed';
}
