import type { ActiveApiKey } from '../../core/api-keys';
import type { Clock } from '../../core/clock';
import { systemClock } from '../../core/clock';
import { createExpiringSet } from '../../core/expiring-set';
import type { Logger } from '../../core/logger';
import { EVERY_API_KEY, listenForApiKeyChanges } from '../../db/listeners/api-key-changes';
import type { ApiKeyChangeListener, ApiKeyChangeOptions } from '../../db/listeners/api-key-changes';

/** The key a hash belongs to; undefined if unknown or revoked. Expired keys are answered too: the caller checks expiry. */
export interface ApiKeyResolver<Key = ActiveApiKey> {
  keyFor(keyHash: string): Promise<Key | undefined>;
  /** A key known to be active (not revoked), from memory only (no database); undefined when not known. */
  knownKeyFor(keyHash: string): Key | undefined;
}

export interface ApiKeyCache<Key = ActiveApiKey> extends ApiKeyResolver<Key> {
  /** True while revocations reach this process; only then are keys answered from memory. */
  readonly listening: boolean;
  /** Connects the listener (waits for the first attempt only: until it succeeds, every key is looked up). */
  start(): Promise<void>;
  stop(): Promise<void>;
}

export interface ApiKeyCacheOptions<Key = ActiveApiKey> extends Partial<Omit<ApiKeyChangeOptions, 'connectionString'>> {
  /** The primary: LISTEN does not work on a replica, and a lagging replica could hand back a key just revoked. */
  databaseUrl: string;
  /** The database's answer; runs on a miss, once for all the requests that wait for the same hash. */
  lookup(keyHash: string): Promise<Key | undefined>;
  log: Logger;
  /** Beyond this many keys the oldest entry is dropped (default 100,000). */
  maxEntries?: number;
  /** How long a hash the database did not know is answered as unknown from memory (default 5 s). */
  unknownTtlMs?: number;
  /** Beyond this many unknown hashes the oldest is dropped (default 10,000). */
  maxUnknownEntries?: number;
  clock?: Clock;
  /** The change listener (default: LISTEN on databaseUrl); tests pass one they drive. */
  listen?: typeof listenForApiKeyChanges;
}

/** One query under way for a hash, shared by every request that waits for it. */
interface Flight<Key> {
  answer: Promise<Key | undefined>;
  /** Changes to its hash that arrived while it ran: its answer may predate them. */
  overtaken: { changed: boolean; created: boolean };
}

/**
 * Active keys in memory, and for a few seconds the hashes the database did not know; both bounded, so made-up keys cannot
 * fill memory. Requests for the same hash share one query. Changes arrive by NOTIFY as they commit: a revocation (or new
 * expiry, scope or owner) drops the key, a creation its unknown hash. While the listener is down nothing is answered from
 * memory, and every (re)connect empties it: a change missed meanwhile cannot leave a key working, or a new one refused.
 */
export function createApiKeyCache<Key = ActiveApiKey>(options: ApiKeyCacheOptions<Key>): ApiKeyCache<Key> {
  const maxEntries = options.maxEntries ?? 100_000;
  const clock = options.clock ?? systemClock;
  const entries = new Map<string, Key>();
  const unknown = createExpiringSet({ ttlMs: options.unknownTtlMs ?? 5_000, maxEntries: options.maxUnknownEntries ?? 10_000 });
  /** The query under way per hash. Detached when a change for its hash arrives: later requests ask again. */
  const inFlight = new Map<string, Flight<Key>>();
  let listening = false;
  /** Bumped by connection events and changes to every key: a lookup that overlapped one is not kept. */
  let generation = 0;
  let listener: ApiKeyChangeListener | undefined;

  const forgetAll = () => {
    generation += 1;
    entries.clear();
    unknown.clear();
    inFlight.clear();
  };

  /** Marks the hash's query under way as overtaken by a change, and lets later requests start their own. */
  const overtake = (keyHash: string, by: 'changed' | 'created') => {
    const flight = inFlight.get(keyHash);
    if (!flight) return;
    flight.overtaken[by] = true;
    inFlight.delete(keyHash);
  };

  const lookUpAndRemember = async (keyHash: string, overtaken: Flight<Key>['overtaken']): Promise<Key | undefined> => {
    const lookedUpIn = generation;
    const key = await options.lookup(keyHash);
    // A revocation meanwhile makes any answer stale; a creation meanwhile only "unknown" (the
    // query may have begun before the key committed), while "active" is then simply true.
    if (listening && generation === lookedUpIn && !overtaken.changed) {
      if (key === undefined) {
        if (!overtaken.created) unknown.add(keyHash, clock.now().getTime());
      } else {
        entries.set(keyHash, key);
        // Map order is insertion order: the first key is the oldest.
        if (entries.size > maxEntries) entries.delete(entries.keys().next().value as string);
      }
    }
    return key;
  };

  return {
    get listening() {
      return listening;
    },

    knownKeyFor(keyHash) {
      return listening ? entries.get(keyHash) : undefined;
    },

    keyFor(keyHash) {
      if (listening) {
        const cached = entries.get(keyHash);
        if (cached !== undefined) return Promise.resolve(cached);
        if (unknown.has(keyHash, clock.now().getTime())) return Promise.resolve(undefined);
      }
      // A request that joins a query under way gets an answer at most that query old; a change
      // that arrives meanwhile detaches the query (overtake), so no later request joins it.
      const pending = inFlight.get(keyHash);
      if (pending) return pending.answer;
      const overtaken = { changed: false, created: false };
      const flight: Flight<Key> = { answer: lookUpAndRemember(keyHash, overtaken), overtaken };
      inFlight.set(keyHash, flight);
      const done = () => {
        if (inFlight.get(keyHash) === flight) inFlight.delete(keyHash);
      };
      flight.answer.then(done, done);
      return flight.answer;
    },

    async start() {
      listener = await (options.listen ?? listenForApiKeyChanges)(
        {
          connectionString: options.databaseUrl,
          applicationName: options.applicationName ?? 'api-key-changes',
          heartbeatMs: options.heartbeatMs ?? 5_000,
          reconnectDelayMs: options.reconnectDelayMs ?? { first: 100, max: 5_000 },
        },
        {
          changed(keyHash) {
            if (keyHash === EVERY_API_KEY) {
              generation += 1;
              entries.clear();
              inFlight.clear();
            } else {
              entries.delete(keyHash);
              overtake(keyHash, 'changed');
            }
          },
          created(keyHash) {
            unknown.delete(keyHash);
            overtake(keyHash, 'created');
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
