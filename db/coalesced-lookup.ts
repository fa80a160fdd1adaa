/**
 * Lookups asked in the same turn of the event loop go to the database as one query, saving the per-query work under
 * load. Lookups of one identity share an answer; each answer comes from a query started after it was asked, so none is staler.
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
