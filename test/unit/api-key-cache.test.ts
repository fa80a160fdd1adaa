import { createApiKeyCache } from '../../api/auth/api-key-cache';
import type { ApiKeyCache, ApiKeyCacheOptions } from '../../api/auth/api-key-cache';
import { createLogger } from '../../core/logger';
import type { ApiKeyChangeHandlers } from '../../db/listeners/api-key-changes';

/**
 * The cache's memory on its own: the database and its NOTIFY listener replaced by fakes this test
 * drives (test/integration/api-key-cache.test.ts runs it on the real ones).
 */
interface Harness {
  /** Partner ids stand in for the keys' records: the cache keeps whatever the lookup answers. */
  cache: ApiKeyCache<string>;
  /** The listener's events, as the real one reports them. */
  events: ApiKeyChangeHandlers;
  /** Every hash the database was asked for, in order. */
  lookups: string[];
  /** Active keys in the fake database: hash → partner. */
  database: Map<string, string>;
  clock: { nowMs: number };
  /** Lookups wait for this while set: to hold several requests on one query. */
  gate: { open?: Promise<void> };
}

async function harness(options: Partial<ApiKeyCacheOptions<string>> = {}): Promise<Harness> {
  const lookups: string[] = [];
  const database = new Map<string, string>();
  const clock = { nowMs: 1_000_000 };
  const gate: Harness['gate'] = {};
  let events: ApiKeyChangeHandlers | undefined;
  const cache = createApiKeyCache<string>({
    databaseUrl: 'postgres://unused/none',
    lookup: async (keyHash) => {
      lookups.push(keyHash);
      await gate.open;
      return database.get(keyHash);
    },
    log: createLogger('api-key-cache-unit', 'error'),
    clock: { now: () => new Date(clock.nowMs) },
    listen: async (_connection, handlers) => {
      events = handlers;
      return { stop: async () => undefined };
    },
    ...options,
  });
  await cache.start();
  return { cache, events: events!, lookups, database, clock, gate };
}

/** A gate that holds every lookup until released. */
function hold(gate: Harness['gate']): () => void {
  let release!: () => void;
  gate.open = new Promise<void>((resolve) => (release = resolve));
  return () => {
    gate.open = undefined;
    release();
  };
}

describe('the API key cache', () => {
  it('answers an active key from memory only while the listener listens', async () => {
    const { cache, events, lookups, database } = await harness();
    database.set('active', 'partner-1');
    expect(await cache.keyFor('active')).toBe('partner-1');
    expect(cache.knownKeyFor('active')).toBeUndefined(); // not listening yet: nothing kept
    events.listening();
    expect(await cache.keyFor('active')).toBe('partner-1');
    expect(await cache.keyFor('active')).toBe('partner-1');
    expect(cache.knownKeyFor('active')).toBe('partner-1');
    expect(lookups).toEqual(['active', 'active']);
  });

  describe('unknown hashes (the negative cache)', () => {
    it('answers a hash the database did not know from memory for 5 s, then asks again', async () => {
      const { cache, events, lookups, clock } = await harness();
      events.listening();
      expect(await cache.keyFor('made-up')).toBeUndefined();
      clock.nowMs += 4_999;
      expect(await cache.keyFor('made-up')).toBeUndefined();
      expect(lookups).toEqual(['made-up']);
      clock.nowMs += 1;
      expect(await cache.keyFor('made-up')).toBeUndefined();
      expect(lookups).toEqual(['made-up', 'made-up']);
      expect(cache.knownKeyFor('made-up')).toBeUndefined();
    });

    it('holds at most maxUnknownEntries hashes (default 10,000), the oldest dropped first', async () => {
      const { cache, events, lookups } = await harness();
      events.listening();
      for (let index = 0; index <= 10_000; index += 1) await cache.keyFor(`made-up-${index}`);
      lookups.length = 0;
      await cache.keyFor('made-up-10000');
      await cache.keyFor('made-up-1');
      expect(lookups).toEqual([]);
      await cache.keyFor('made-up-0');
      expect(lookups).toEqual(['made-up-0']);
    });

    it('forgets a hash when its key is created (created:<hash>), so the new key works at once', async () => {
      const { cache, events, lookups, database } = await harness();
      events.listening();
      expect(await cache.keyFor('soon-created')).toBeUndefined();
      expect(await cache.keyFor('other-unknown')).toBeUndefined();
      database.set('soon-created', 'partner-2');
      events.created('soon-created');
      expect(await cache.keyFor('soon-created')).toBe('partner-2');
      expect(await cache.keyFor('other-unknown')).toBeUndefined();
      expect(lookups).toEqual(['soon-created', 'other-unknown', 'soon-created']);
    });

    it('does not remember "unknown" from a lookup that a creation overlapped', async () => {
      const { cache, events, lookups, database, gate } = await harness();
      events.listening();
      const release = hold(gate);
      const answer = cache.keyFor('racing');
      // The key commits while the query, which began before it, is under way: its answer is stale.
      events.created('racing');
      release();
      expect(await answer).toBeUndefined();
      database.set('racing', 'partner-3');
      expect(await cache.keyFor('racing')).toBe('partner-3');
      expect(lookups).toEqual(['racing', 'racing']);
    });

    it('is not used while the listener is down, and starts empty when it reconnects', async () => {
      const { cache, events, lookups, database } = await harness();
      events.listening();
      await cache.keyFor('made-up');
      events.lost('connection ended');
      // A creation now would reach no one: every hash is asked of the database.
      database.set('made-up', 'partner-4');
      expect(await cache.keyFor('made-up')).toBe('partner-4');
      database.delete('made-up');
      expect(await cache.keyFor('made-up')).toBeUndefined();
      expect(await cache.keyFor('made-up')).toBeUndefined();
      expect(lookups).toEqual(['made-up', 'made-up', 'made-up', 'made-up']);
      events.listening();
      database.set('made-up', 'partner-4');
      expect(await cache.keyFor('made-up')).toBe('partner-4');
    });

    it('is not used after stop', async () => {
      const { cache, events, lookups } = await harness();
      events.listening();
      await cache.keyFor('made-up');
      await cache.stop();
      await cache.keyFor('made-up');
      expect(lookups).toEqual(['made-up', 'made-up']);
    });
  });

  describe('one query for concurrent requests (single flight)', () => {
    it('100 concurrent requests for the same unknown hash cost one lookup, listening or not', async () => {
      for (const listening of [false, true]) {
        const { cache, events, lookups, gate } = await harness();
        if (listening) events.listening();
        const release = hold(gate);
        const answers = Promise.all(Array.from({ length: 100 }, () => cache.keyFor('flooded')));
        release();
        expect(await answers).toEqual(Array<undefined>(100).fill(undefined));
        expect(lookups).toEqual(['flooded']);
      }
    });

    it('a later request asks again once the shared query is answered (nothing kept while not listening)', async () => {
      const { cache, lookups } = await harness();
      await cache.keyFor('flooded');
      await cache.keyFor('flooded');
      expect(lookups).toEqual(['flooded', 'flooded']);
    });

    it('a revocation or creation under way detaches the query: later requests do not join it', async () => {
      const { cache, events, lookups, database, gate } = await harness();
      events.listening();
      database.set('key', 'partner-5');
      const release = hold(gate);
      const early = cache.keyFor('key');
      database.delete('key');
      events.changed('key');
      const late = cache.keyFor('key');
      release();
      await Promise.all([early, late]);
      expect(await late).toBeUndefined();
      expect(lookups).toEqual(['key', 'key']);
      // Neither answer was kept as active: the revocation overlapped the first.
      expect(cache.knownKeyFor('key')).toBeUndefined();
    });

    it('a creation under way keeps an "active" answer (it is true) but not an "unknown" one', async () => {
      const { cache, events, lookups, database, gate } = await harness();
      events.listening();
      database.set('new-key', 'partner-7');
      const release = hold(gate);
      const answer = cache.keyFor('new-key');
      events.created('new-key');
      release();
      expect(await answer).toBe('partner-7');
      expect(cache.knownKeyFor('new-key')).toBe('partner-7');
      expect(lookups).toEqual(['new-key']);
    });

    it('a failed query fails every request that shared it, and the next request asks again', async () => {
      let attempts = 0;
      const { cache } = await harness({
        lookup: async () => {
          attempts += 1;
          if (attempts === 1) throw new Error('database unavailable');
          return 'partner-6';
        },
      });
      const shared = [cache.keyFor('key'), cache.keyFor('key')];
      await expect(Promise.all(shared)).rejects.toThrow('database unavailable');
      expect(await cache.keyFor('key')).toBe('partner-6');
      expect(attempts).toBe(2);
    });
  });
});
