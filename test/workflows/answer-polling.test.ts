import { CancelledFailure } from '@temporalio/common';
import { MockActivityEnvironment } from '@temporalio/testing';
import { pollForAnswer } from '../../activities/answer-polling';
import type { AnswerPollingSchedule } from '../../contracts';

/**
 * How the activities that await the chain or the bank poll, in an activity context of their own
 * (no worker): answers, heartbeats, the window, resuming a retried attempt, cancellation.
 */

const FAST: AnswerPollingSchedule = { windowMs: 10_000, firstIntervalMs: 10, backoffCoefficient: 2, longestIntervalMs: 40 };

/** An `ask` that answers PENDING `pending` times, then `answer`. */
function scripted<Answer>(pending: number, answer: Answer): jest.Mock<Promise<Answer | 'PENDING'>, []> {
  let left = pending;
  return jest.fn(async () => (left-- > 0 ? 'PENDING' : answer));
}

function environment(heartbeatDetails?: unknown) {
  const env = new MockActivityEnvironment({ heartbeatDetails });
  const heartbeats: unknown[] = [];
  env.on('heartbeat', (details: unknown) => heartbeats.push(details));
  return { env, heartbeats };
}

describe('polling for an answer', () => {
  it('asks until the answer comes, heartbeating after each pending poll with the interval it will sleep', async () => {
    const { env, heartbeats } = environment();
    const ask = scripted(4, 'CONFIRMED');
    await expect(env.run(pollForAnswer, ask, FAST)).resolves.toBe('CONFIRMED');
    expect(ask).toHaveBeenCalledTimes(5);
    expect(heartbeats).toEqual([
      { polls: 1, intervalMs: 10 },
      { polls: 2, intervalMs: 20 },
      { polls: 3, intervalMs: 40 },
      { polls: 4, intervalMs: 40 },
    ]);
  });

  it('answers at once, without a heartbeat, when the first poll has the answer', async () => {
    const { env, heartbeats } = environment();
    await expect(env.run(pollForAnswer, scripted(0, { state: 'SETTLED' }), FAST)).resolves.toEqual({ state: 'SETTLED' });
    expect(heartbeats).toEqual([]);
  });

  it('answers PENDING when the window closes without an answer, so the workflow asks again later', async () => {
    const { env } = environment();
    const ask = scripted(Number.MAX_SAFE_INTEGER, 'CONFIRMED');
    await expect(env.run(pollForAnswer, ask, { ...FAST, windowMs: 100 })).resolves.toBe('PENDING');
    // Sleeps of 10, 20 and 40 ms fit the 100 ms window, the next 40 would not: at most four polls.
    expect(ask.mock.calls.length).toBeLessThanOrEqual(4);
  });

  it('resumes a retried attempt from its last heartbeat: the same interval, the polls counted on', async () => {
    const { env, heartbeats } = environment({ polls: 7, intervalMs: 40 });
    await expect(env.run(pollForAnswer, scripted(1, 'CONFIRMED'), FAST)).resolves.toBe('CONFIRMED');
    expect(heartbeats).toEqual([{ polls: 8, intervalMs: 40 }]);
  });

  it.each([[{ polls: -1, intervalMs: 40 }], [{ polls: 1, intervalMs: 1e9 }], ['garbage'], [null]])(
    'starts afresh from heartbeat details it does not recognise (%j)',
    async (details) => {
      const { env, heartbeats } = environment(details);
      await env.run(pollForAnswer, scripted(1, 'CONFIRMED'), FAST);
      expect(heartbeats).toEqual([{ polls: 1, intervalMs: 10 }]);
    },
  );

  it('stops sleeping when the activity is cancelled (worker shutdown, heartbeat timeout)', async () => {
    const { env } = environment();
    const ask = scripted(Number.MAX_SAFE_INTEGER, 'CONFIRMED');
    const polling = env.run(pollForAnswer, ask, { ...FAST, firstIntervalMs: 60_000, longestIntervalMs: 60_000, windowMs: 600_000 });
    env.cancel('CANCELLED');
    await expect(polling).rejects.toBeInstanceOf(CancelledFailure);
    expect(ask).toHaveBeenCalledTimes(1);
  });

  it('lets a definite failure from the chain or the bank through unchanged', async () => {
    const { env } = environment();
    const failed = new Error('transaction failed on chain');
    await expect(env.run(pollForAnswer, jest.fn().mockResolvedValueOnce('PENDING').mockRejectedValueOnce(failed), FAST)).rejects.toBe(
      failed,
    );
  });
});
