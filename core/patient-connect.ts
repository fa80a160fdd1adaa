import { setTimeout as sleep } from 'node:timers/promises';
import type { Logger } from './logger';

/** How long a starting process waits for Temporal to answer before it gives up and exits. */
export const TEMPORAL_CONNECT_PATIENCE_MS = 60_000;
const LONGEST_PAUSE_MS = 5_000;

/**
 * Connects to Temporal, retrying for a while: a server restarting, paused or still starting
 * (docker-compose, a rolling restart, the chaos run's SIGSTOP) is a wait, not a crash. The SDK's
 * own connect gives up after one short deadline ("Failed to connect before the deadline"), and a
 * process that exits then leaves its supervisor to guess. Each failure is logged with its reason,
 * so a wrong address or certificate is visible at once, and the last one is thrown at the end.
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
