import { setTimeout as sleep } from 'node:timers/promises';
import { Connection, defaultGrpcRetryOptions, makeGrpcRetryInterceptor } from '@temporalio/client';
import type { ConnectionOptions } from '@temporalio/client';

/** Closable mid-retry: the SDK's retry timer would hit a closed channel and crash the process; `close` waits it out. */
export interface ClosableConnection {
  connection: Connection;
  close: () => Promise<void>;
}

export async function connectClosable(options: ConnectionOptions): Promise<ClosableConnection> {
  const defaults = defaultGrpcRetryOptions();
  let closing = false;
  // When the last retry timer set fires; a retry started by it runs to its end on the open channel.
  let lastTimerAt = 0;
  const retries = makeGrpcRetryInterceptor({
    retryableDecider: (attempt, status) => !closing && defaults.retryableDecider(attempt, status),
    delayFunction: (attempt, status) => {
      const delayMs = defaults.delayFunction(attempt, status);
      lastTimerAt = Math.max(lastTimerAt, Date.now() + delayMs);
      return delayMs;
    },
  });
  const connection = await Connection.connect({ ...options, interceptors: [...(options.interceptors ?? []), retries] });
  return {
    connection,
    close: async () => {
      closing = true;
      const waitMs = lastTimerAt - Date.now();
      // A margin past the timer: the attempt it starts must be on the channel before it closes.
      if (waitMs > -50) await sleep(Math.max(0, waitMs) + 50);
      await connection.close();
    },
  };
}
