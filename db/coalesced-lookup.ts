/**
 * Lookups asked for in the same turn of the event loop go to the database together, as one query.
 * Under load one round trip then answers many requests, which saves most of the per-query work
 * on both sides (system calls, protocol messages, executor start-up); alone, a lookup waits only
 * for the end of the current turn. Lookups with the same identity share one answer. Every lookup
 * is answered by a query that started after it was asked, so no answer is older than a query of
 * its own would have been.
 */
export function coalescedLookup<Key, Value>(
  loadMany: (keys: readonly Key[]) => Promise<ReadonlyMap<Key, Value>>,
  options: { maxKeysPerQuery: number; identityOf?: (key: Key) => unknown },
): (key: Key) => Promise<Value | undefined> {
  interface Batch {
    /** The first key of each identity, which stands for every lookup that shares it. */
    keys: Map<unknown, Key>;
    waiters: Array<{ identity: unknown; resolve(value: Value | undefined): void; reject(error: unknown): void }>;
  }
  const identityOf = options.identityOf ?? ((key: Key) => key);
  let collecting: Batch | undefined;

  const flush = (batch: Batch) => {
    if (collecting === batch) collecting = undefined;
    loadMany([...batch.keys.values()]).then(
      (values) => batch.waiters.forEach((waiter) => waiter.resolve(values.get(batch.keys.get(waiter.identity)!))),
      (error: unknown) => batch.waiters.forEach((waiter) => waiter.reject(error)),
    );
  };

  return (key) =>
    new Promise<Value | undefined>((resolve, reject) => {
      let batch = collecting;
      if (!batch) {
        const started: Batch = { keys: new Map(), waiters: [] };
        collecting = batch = started;
        setImmediate(() => {
          if (collecting === started) flush(started);
        });
      }
      const identity = identityOf(key);
      if (!batch.keys.has(identity)) batch.keys.set(identity, key);
      batch.waiters.push({ identity, resolve, reject });
      if (batch.keys.size >= options.maxKeysPerQuery) flush(batch);
    });
}
