import type { Clock } from '../../core/clock';
import { createExpiringSet } from '../../core/expiring-set';
import type { Logger } from '../../core/logger';

/** Records that a key was used (`last_used_at`), coarsely and off the request path. */
export interface KeyUsage {
  /** Never waits and never throws: the request goes on whatever happens to the write. */
  used(apiKeyId: string): void;
}

export interface KeyUsageOptions {
  /** The write; the database applies the same resolution across processes (db/queries/api-key.queries.ts). */
  record(apiKeyId: string, usedAt: Date): Promise<unknown>;
  /** How coarse: a key is written at most once in this long by this process. */
  resolutionMs: number;
  log: Logger;
  clock: Clock;
  /** Beyond this many keys the oldest is forgotten (and may be written again early; the database still refuses). */
  maxEntries?: number;
}

/** At most one write per key per `resolutionMs` (here, and across processes by the UPDATE); failures are only logged: a mere hint. */
export function createKeyUsage(options: KeyUsageOptions): KeyUsage {
  const written = createExpiringSet({ ttlMs: options.resolutionMs, maxEntries: options.maxEntries ?? 100_000 });
  return {
    used(apiKeyId) {
      const now = options.clock.now();
      if (written.has(apiKeyId, now.getTime())) return;
      written.add(apiKeyId, now.getTime());
      options.record(apiKeyId, now).catch((error: unknown) => {
        options.log.warn(`API key ${apiKeyId}: last use not recorded: ${error instanceof Error ? error.message : String(error)}`);
      });
    },
  };
}
