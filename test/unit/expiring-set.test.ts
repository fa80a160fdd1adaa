import { createExpiringSet } from '../../core/expiring-set';

describe('an expiring set', () => {
  it('holds a member for ttlMs after it was added, then forgets it', () => {
    const set = createExpiringSet({ ttlMs: 5_000, maxEntries: 10 });
    set.add('a', 1_000);
    expect(set.has('a', 1_000)).toBe(true);
    expect(set.has('a', 5_999)).toBe(true);
    expect(set.has('a', 6_000)).toBe(false);
    expect(set.size).toBe(0);
    expect(set.has('never added', 0)).toBe(false);
  });

  it("adding again starts the member's time over", () => {
    const set = createExpiringSet({ ttlMs: 5_000, maxEntries: 10 });
    set.add('a', 0);
    set.add('a', 4_000);
    expect(set.has('a', 8_999)).toBe(true);
    expect(set.size).toBe(1);
  });

  it('drops expired members as others are added, so they do not hold memory', () => {
    const set = createExpiringSet({ ttlMs: 1_000, maxEntries: 10 });
    for (const member of ['a', 'b', 'c']) set.add(member, 0);
    set.add('d', 1_000);
    expect(set.size).toBe(1);
  });

  it('holds at most maxEntries, dropping the oldest first', () => {
    const set = createExpiringSet({ ttlMs: 60_000, maxEntries: 3 });
    for (const [index, member] of ['a', 'b', 'c', 'd'].entries()) set.add(member, index);
    expect(set.size).toBe(3);
    expect(['a', 'b', 'c', 'd'].map((member) => set.has(member, 10))).toEqual([false, true, true, true]);
  });

  it('forgets one member, or all', () => {
    const set = createExpiringSet({ ttlMs: 60_000, maxEntries: 3 });
    set.add('a', 0);
    set.add('b', 0);
    set.delete('a');
    expect([set.has('a', 0), set.has('b', 0)]).toEqual([false, true]);
    set.clear();
    expect(set.size).toBe(0);
  });

  it.each([[{ ttlMs: 0, maxEntries: 1 }], [{ ttlMs: 1, maxEntries: 0 }]])('refuses options that cannot hold: %j', (bad) => {
    expect(() => createExpiringSet(bad)).toThrow('an expiring set needs ttlMs > 0 and maxEntries >= 1');
  });
});
