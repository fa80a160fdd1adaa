import { Context } from '@temporalio/activity';
import { ANSWER_POLLING } from '../contracts';
import type { AnswerPollingSchedule } from '../contracts';

/** What a heartbeat records, so a retried attempt goes on where the last one was. */
interface PollingProgress {
  polls: number;
  intervalMs: number;
}

/**
 * Asks (`ask`) with backoff for at most one window, then answers PENDING: the workflow asks again on a durable timer, so a
 * slow answer never holds a worker slot long. Each poll heartbeats, so a retried attempt resumes from the last interval and
 * a cancellation ends the sleep at once.
 */
export async function pollForAnswer<Answer>(
  ask: () => Promise<Answer | 'PENDING'>,
  schedule: AnswerPollingSchedule = ANSWER_POLLING,
): Promise<Answer | 'PENDING'> {
  const context = Context.current();
  const resumed = progressOf(context.info.heartbeatDetails, schedule);
  let polls = resumed?.polls ?? 0;
  let intervalMs = resumed?.intervalMs ?? schedule.firstIntervalMs;
  // Wall time, asks included: the window must fit the activity's start-to-close timeout.
  const windowEndsAtMs = Date.now() + schedule.windowMs;
  for (;;) {
    const answer = await ask();
    polls += 1;
    if (answer !== 'PENDING') return answer;
    if (Date.now() + intervalMs > windowEndsAtMs) return 'PENDING';
    context.heartbeat({ polls, intervalMs } satisfies PollingProgress);
    await context.sleep(intervalMs);
    intervalMs = Math.min(intervalMs * schedule.backoffCoefficient, schedule.longestIntervalMs);
  }
}

/** The details of the last heartbeat, when they are ours and sane; anything else starts afresh. */
function progressOf(details: unknown, schedule: AnswerPollingSchedule): PollingProgress | undefined {
  if (typeof details !== 'object' || details === null) return undefined;
  const { polls, intervalMs } = details as Partial<PollingProgress>;
  if (typeof polls !== 'number' || !Number.isSafeInteger(polls) || polls < 0) return undefined;
  if (typeof intervalMs !== 'number' || !(intervalMs >= schedule.firstIntervalMs && intervalMs <= schedule.longestIntervalMs))
    return undefined;
  return { polls, intervalMs };
}
