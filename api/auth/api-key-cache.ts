import type { Logger } from '../../core/logger';
import { EVERY_API_KEY, listenForApiKeyChanges } from '../../db/queries/api-key-changes';
import type { ApiKeyChangeListener, ApiKeyChangeOptions } from '../../db/queries/api-key-changes';

/** Who a key (by its hash) belongs to; undefined for an unknown or revoked key. */
export interface ApiKeyResolver {
  partnerIdFor(keyHash: string): Promise<string | undefined>;
}

export interface ApiKeyCache extends ApiKeyResolver {
  /** True while revocations reach this process; only then are keys answered from memory. */
  readonly listening: boolean;
  /** Connects the listener (waits for the first attempt only: until it succeeds, every key is looked up). */
  start(): Promise<void>;
  stop(): Promise<void>;
}

export interface ApiKeyCacheOptions extends Partial<Omit<ApiKeyChangeOptions, 'connectionString'>> {
  /** The primary: LISTEN does not work on a replica, and a lagging replica could hand back a key just revoked. */
  databaseUrl: string;
  /** The database's answer; runs on every miss. */
  lookup(keyHash: string): Promise<string | undefined>;
  log: Logger;
  /** Beyond this many keys the oldest entry is dropped (default 100,000). */
  maxEntries?: number;
}

/**
 * Active API keys in memory, so a request needs no database round trip to authenticate. Only
 * keys that exist are kept (an unknown key is asked of the database every time, so made-up keys
 * cannot fill memory), and at most maxEntries of them. A revocation anywhere reaches every process
 * through Postgres NOTIFY as it commits. While the listener is disconnected nothing is answered
 * from memory, and on every (re)connect the memory is emptied: a revocation missed meanwhile
 * cannot leave a key working.
 */
export function createApiKeyCache(options: ApiKeyCacheOptions): ApiKeyCache {
  const maxEntries = options.maxEntries ?? 100_000;
  const entries = new Map<string, string>();
  let listening = false;
  /** Bumped by every change and connection event: a lookup that overlapped one is not kept. */
  let generation = 0;
  let listener: ApiKeyChangeListener | undefined;

  const forgetAll = () => {
    generation += 1;
    entries.clear();
  };

  return {
    get listening() {
      return listening;
    },

    async partnerIdFor(keyHash) {
      if (listening) {
        const cached = entries.get(keyHash);
        if (cached !== undefined) return cached;
      }
      const lookedUpIn = generation;
      const partnerId = await options.lookup(keyHash);
      if (partnerId !== undefined && listening && generation === lookedUpIn) {
        entries.set(keyHash, partnerId);
        // Map order is insertion order: the first key is the oldest.
        if (entries.size > maxEntries) entries.delete(entries.keys().next().value as string);
      }
      return partnerId;
    },

    async start() {
      listener = await listenForApiKeyChanges(
        {
          connectionString: options.databaseUrl,
          applicationName: options.applicationName ?? 'api-key-changes',
          heartbeatMs: options.heartbeatMs ?? 5_000,
          reconnectDelayMs: options.reconnectDelayMs ?? { first: 100, max: 5_000 },
        },
        {
          changed(keyHash) {
            generation += 1;
            if (keyHash === EVERY_API_KEY) entries.clear();
            else entries.delete(keyHash);
          },
          listening() {
            forgetAll();
            listening = true;
          },
          lost(reason) {
            listening = false;
            forgetAll();
            options.log.warn(`API key changes: listener lost (${reason}); keys are looked up per request until it reconnects`);
          },
        },
      );
    },

    async stop() {
      listening = false;
      forgetAll();
      await listener?.stop();
    },
  };
}
