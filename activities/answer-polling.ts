import { Context } from '@temporalio/activity';
import { ANSWER_POLLING } from '../contracts';
import type { AnswerPollingSchedule } from '../contracts';

/** What a heartbeat records, so a retried attempt goes on where the last one was. */
interface PollingProgress {
  polls: number;
  intervalMs: number;
}

/**
 * Asks the chain or the bank (`ask`) until it answers, for at most one window, sleeping with backoff
 * in between: PENDING when the window closes without an answer (the workflow asks again later, on
 * a durable timer, so a slow answer never holds a worker slot for long). "Not yet" is no failure:
 * nothing is retried or logged for it. Each poll heartbeats: Temporal notices a dead worker, the
 * next attempt resumes from the last interval instead of polling fast again, and a cancellation
 * (worker shutdown, heartbeat timeout) ends the sleep at once.
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
