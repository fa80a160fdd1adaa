import { DomainError } from '../../core/errors';
import type { Logger } from '../../core/logger';

/** What Temporal says of the workflow task queue: how long its oldest waiting task has waited. */
export interface Backlog {
  ageMs: number;
  count: number;
}

/**
 * Admission control. Behind workers, a request abandoned at the deadline still costs a task and its retry adds another,
 * so the backlog never drains (a metastable failure). So a new operation is refused before anything is recorded while
 * the queue's oldest task is older than a third of the deadline. The backlog is read in the background at most once a
 * second; a failed or stale reading admits.
 */
export interface Admission {
  /** Throws `service-unavailable` when a new workflow would not be served within the deadline. */
  admit(): void;
}

export interface AdmissionOptions {
  readBacklog: () => Promise<Backlog>;
  responseTimeoutMs: number;
  log: Logger;
  now?: () => number;
}

/** How often the backlog is read while requests come in. */
export const BACKLOG_READ_INTERVAL_MS = 1_000;
/** A reading older than this (no request for a while, or reads failing) no longer refuses. */
export const BACKLOG_READING_TTL_MS = 5_000;
/** Temporal's own cache of the figures (matching.TaskQueueInfoByBuildIdTTL): a finer bound means nothing. */
export const MIN_BACKLOG_AGE_BOUND_MS = 5_000;

export function backlogAgeBoundMs(responseTimeoutMs: number): number {
  return Math.max(MIN_BACKLOG_AGE_BOUND_MS, Math.floor(responseTimeoutMs / 3));
}

export function createAdmission(options: AdmissionOptions): Admission {
  const now = options.now ?? Date.now;
  const boundMs = backlogAgeBoundMs(options.responseTimeoutMs);
  let reading: { backlog: Backlog; at: number } | undefined;
  let lastReadStarted = Number.NEGATIVE_INFINITY;
  let reads: Promise<void> | undefined;
  let refusing = false;
  let readsFailing = false;

  const read = async () => {
    try {
      const backlog = await options.readBacklog();
      reading = { backlog, at: now() };
      readsFailing = false;
    } catch (error) {
      // Unknown is not late: the start's own bounded wait answers an unreachable Temporal.
      reading = undefined;
      // Once per run of failures (e.g. an authorizer denying DescribeTaskQueue).
      if (!readsFailing)
        options.log.warn(`admission: the task queue's backlog cannot be read, so new operations are admitted: ${(error as Error).message}`);
      readsFailing = true;
    } finally {
      reads = undefined;
    }
  };

  const late = (): Backlog | undefined => {
    if (!reading || now() - reading.at > BACKLOG_READING_TTL_MS) return undefined;
    return reading.backlog.ageMs > boundMs ? reading.backlog : undefined;
  };

  return {
    admit() {
      if (!reads && now() - lastReadStarted >= BACKLOG_READ_INTERVAL_MS) {
        lastReadStarted = now();
        reads = read();
      }
      const backlog = late();
      if (backlog !== undefined) {
        if (!refusing)
          options.log.warn(
            `admission: refusing new operations while the workflow task queue is behind (oldest task waiting ${seconds(backlog.ageMs)} s, ${backlog.count} tasks; bound ${seconds(boundMs)} s)`,
          );
        refusing = true;
        throw new DomainError(
          'service-unavailable',
          `the service is behind on its work (its oldest waiting operation has waited ${seconds(backlog.ageMs)} s), so this operation was not started: nothing was moved; retry later`,
        );
      }
      if (refusing) options.log.info('admission: the workflow task queue caught up; admitting new operations again');
      refusing = false;
    },
  };
}

function seconds(ms: number): string {
  return (ms / 1000).toFixed(1);
}
