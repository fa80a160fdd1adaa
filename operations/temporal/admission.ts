import { DomainError } from '../../core/errors';
import type { Logger } from '../../core/logger';

/** What Temporal says of the workflow task queue: how long its oldest waiting task has waited. */
export interface Backlog {
  ageMs: number;
  count: number;
}

/**
 * Admission control. Behind workers, a request abandoned at the deadline still costs a task and its retry adds another,
 * so the backlog never drains (a metastable failure). So while the queue's oldest task is older than a third of the
 * deadline, a new operation is refused before anything is recorded, but only that of a partner at or above its fair
 * share of what this process started lately (a decaying count per partner against the mean of the partners that
 * started any): one partner's flood is refused, not the partner sending one exchange a second. Once the oldest task is
 * as old as the whole deadline nothing new could be served in time, and every partner is refused. The backlog is read in
 * the background at most once a second; a failed or stale reading admits.
 *
 * Each partner also has a bound on its operations in flight in this process (waiting for their answer): past it, 429.
 */
export interface Admission {
  /**
   * Throws `service-unavailable` when this partner's new workflow would not be served within the deadline, and
   * `too-many-operations` when the partner already has its bound in flight; otherwise a ticket the caller settles.
   */
  admit(partnerId: string): AdmissionTicket;
}

export interface AdmissionTicket {
  /** The operation was recorded and its workflow started: it counts towards the partner's share. */
  started(): void;
  /** Its caller has the answer (or gave up): no longer in flight. Once; later calls do nothing. */
  release(): void;
}

export interface AdmissionOptions {
  readBacklog: () => Promise<Backlog>;
  responseTimeoutMs: number;
  /** OPERATIONS_IN_FLIGHT_PER_PARTNER: a partner's operations waiting for their answer in this process at most. */
  maxInFlightPerPartner: number;
  log: Logger;
  now?: () => number;
}

/** How often the backlog is read while requests come in. */
export const BACKLOG_READ_INTERVAL_MS = 1_000;
/** A reading older than this (no request for a while, or reads failing) no longer refuses. */
export const BACKLOG_READING_TTL_MS = 5_000;
/** Temporal's own cache of the figures (matching.TaskQueueInfoByBuildIdTTL): a finer bound means nothing. */
export const MIN_BACKLOG_AGE_BOUND_MS = 5_000;
/** A start counts half as much after this: a partner's share follows what it sent over the last minute or so. */
export const STARTS_HALF_LIFE_MS = 30_000;
/** Partners whose starts are tracked per process; past it the idlest is forgotten (it comes back with none). */
const MAX_TRACKED_PARTNERS = 10_000;

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
  const starts = createDecayingCounts(STARTS_HALF_LIFE_MS, MAX_TRACKED_PARTNERS);
  const inFlight = new Map<string, number>();

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

  /** Whether the partner is not among those the backlog is refused to: below the mean of the partners' recent starts. */
  const belowItsShare = (partnerId: string, backlog: Backlog): boolean => {
    if (backlog.ageMs >= options.responseTimeoutMs) return false;
    const nowMs = now();
    const { total, partners } = starts.summary(nowMs);
    return partners > 0 && starts.of(partnerId, nowMs) < total / partners;
  };

  return {
    admit(partnerId) {
      if (!reads && now() - lastReadStarted >= BACKLOG_READ_INTERVAL_MS) {
        lastReadStarted = now();
        reads = read();
      }
      const backlog = late();
      if (backlog !== undefined && !belowItsShare(partnerId, backlog)) {
        if (!refusing)
          options.log.warn(
            `admission: refusing new operations of the partners at or above their share while the workflow task queue is behind (oldest task waiting ${seconds(backlog.ageMs)} s, ${backlog.count} tasks; bound ${seconds(boundMs)} s)`,
          );
        refusing = true;
        throw new DomainError(
          'service-unavailable',
          `the service is behind on its work (its oldest waiting operation has waited ${seconds(backlog.ageMs)} s) and this partner has sent its share of it, so this operation was not started: nothing was moved; retry later`,
        );
      }
      if (backlog === undefined && refusing) {
        options.log.info('admission: the workflow task queue caught up; admitting new operations again');
        refusing = false;
      }
      const flying = inFlight.get(partnerId) ?? 0;
      if (flying >= options.maxInFlightPerPartner)
        throw new DomainError(
          'too-many-operations',
          `this partner already has ${flying} operations waiting for their answer here, the most it may: wait for one to be answered; nothing was moved`,
        );
      inFlight.set(partnerId, flying + 1);
      let released = false;
      return {
        started: () => starts.add(partnerId, now()),
        release: () => {
          if (released) return;
          released = true;
          const left = (inFlight.get(partnerId) ?? 1) - 1;
          if (left > 0) inFlight.set(partnerId, left);
          else inFlight.delete(partnerId);
        },
      };
    },
  };
}

/** Counts that halve every `halfLifeMs`, per key; the idlest key forgotten past `maxKeys`. */
function createDecayingCounts(halfLifeMs: number, maxKeys: number) {
  const counts = new Map<string, { value: number; atMs: number }>();
  const decayed = (entry: { value: number; atMs: number }, nowMs: number) =>
    entry.value * 2 ** (-Math.max(0, nowMs - entry.atMs) / halfLifeMs);
  return {
    add(key: string, nowMs: number): void {
      const entry = counts.get(key);
      counts.delete(key);
      counts.set(key, { value: (entry ? decayed(entry, nowMs) : 0) + 1, atMs: nowMs });
      if (counts.size > maxKeys) counts.delete(counts.keys().next().value as string);
    },
    of(key: string, nowMs: number): number {
      const entry = counts.get(key);
      return entry ? decayed(entry, nowMs) : 0;
    },
    /** The sum over every key, and how many keys still count for something (a hundredth of a start or more). */
    summary(nowMs: number): { total: number; partners: number } {
      let total = 0;
      let partners = 0;
      for (const entry of counts.values()) {
        const value = decayed(entry, nowMs);
        total += value;
        if (value >= 0.01) partners += 1;
      }
      return { total, partners };
    },
  };
}

function seconds(ms: number): string {
  return (ms / 1000).toFixed(1);
}
