import { createKeyUsage } from '../../api/auth/key-usage';
import type { LogFields, Logger } from '../../core/logger';

/** The record of a key's last use on its own: a write this test controls and a clock that moves only when told. */
function harness(options: { fail?: boolean; maxEntries?: number } = {}) {
  const writes: Array<{ apiKeyId: string; usedAt: Date }> = [];
  const warnings: string[] = [];
  const clock = { nowMs: 1_000_000 };
  const log = {
    warn: (message: string, _fields?: LogFields) => warnings.push(message),
  } as unknown as Logger;
  const usage = createKeyUsage({
    record: (apiKeyId, usedAt) => {
      writes.push({ apiKeyId, usedAt });
      return options.fail ? Promise.reject(new Error('database unavailable')) : new Promise(() => undefined);
    },
    resolutionMs: 60_000,
    log,
    clock: { now: () => new Date(clock.nowMs) },
    ...(options.maxEntries === undefined ? {} : { maxEntries: options.maxEntries }),
  });
  return { usage, writes, warnings, clock };
}

describe("a key's last use", () => {
  it('is written at most once a minute per key, without waiting for the write (which here never ends)', () => {
    const { usage, writes, clock } = harness();
    usage.used('key-1');
    usage.used('key-1');
    usage.used('key-2');
    clock.nowMs += 59_999;
    usage.used('key-1');
    expect(writes.map((write) => write.apiKeyId)).toEqual(['key-1', 'key-2']);
    expect(writes[0]!.usedAt).toEqual(new Date(1_000_000));
    clock.nowMs += 1;
    usage.used('key-1');
    expect(writes.map((write) => write.apiKeyId)).toEqual(['key-1', 'key-2', 'key-1']);
  });

  it('logs a failed write and throws nothing; the key is not written again before the minute is up', async () => {
    const { usage, writes, warnings } = harness({ fail: true });
    expect(() => usage.used('key-1')).not.toThrow();
    await new Promise((resolve) => setImmediate(resolve));
    expect(warnings).toEqual(['API key key-1: last use not recorded: database unavailable']);
    usage.used('key-1');
    expect(writes).toHaveLength(1);
  });

  it('remembers a bounded number of keys: past it, the oldest may be written again early (the database still refuses)', () => {
    const { usage, writes } = harness({ maxEntries: 2 });
    for (const key of ['a', 'b', 'c', 'a']) usage.used(key);
    expect(writes.map((write) => write.apiKeyId)).toEqual(['a', 'b', 'c', 'a']);
  });
});
