import { setTimeout as sleep } from 'node:timers/promises';
import type { Logger } from './logger';

/** How long a starting process waits for Temporal to answer before it gives up and exits. */
export const TEMPORAL_CONNECT_PATIENCE_MS = 60_000;
const LONGEST_PAUSE_MS = 5_000;

/**
 * Retries connecting to Temporal: a server restarting or paused is a wait, not a crash (the SDK gives up
 * after one short deadline). Each failure is logged, so a wrong address or certificate shows at once.
 */
export async function connectPatiently<Connection>(
  what: string,
  connect: () => Promise<Connection>,
  log: Logger,
  patienceMs = TEMPORAL_CONNECT_PATIENCE_MS,
): Promise<Connection> {
  const giveUpAt = Date.now() + patienceMs;
  for (let attempt = 1; ; attempt += 1) {
    try {
      return await connect();
    } catch (error) {
      const pauseMs = Math.min(LONGEST_PAUSE_MS, 250 * 2 ** (attempt - 1));
      if (Date.now() + pauseMs >= giveUpAt) throw error;
      log.warn(`${what}: Temporal did not answer (${(error as Error).message}); trying again in ${pauseMs} ms`);
      await sleep(pauseMs);
    }
  }
}
