import { createTokenBuckets, secondsUntilFull, secondsUntilToken } from '../../core/token-buckets';

describe('token buckets', () => {
  const policy = { perSecond: 2, burst: 3, maxBuckets: 10 };

  it('give a new key its whole burst, then refuse until tokens come back at the rate', () => {
    const buckets = createTokenBuckets(policy);
    expect([1, 2, 3, 4].map(() => buckets.take('a', 0).allowed)).toEqual([true, true, true, false]);
    expect(buckets.take('a', 499)).toEqual({ allowed: false, tokens: 0.998 });
    expect(buckets.take('a', 500)).toEqual({ allowed: true, tokens: 0 });
    // Idle for long: full again, never beyond the burst.
    expect(buckets.take('a', 60_000)).toEqual({ allowed: true, tokens: 2 });
  });

  it('keep each key apart', () => {
    const buckets = createTokenBuckets(policy);
    for (let index = 0; index < 3; index += 1) buckets.take('flooding', 0);
    expect(buckets.take('flooding', 0).allowed).toBe(false);
    expect(buckets.take('quiet', 0).allowed).toBe(true);
  });

  it('take a token back for an attempt that did not count, never beyond the burst', () => {
    const buckets = createTokenBuckets(policy);
    for (let index = 0; index < 3; index += 1) buckets.take('a', 0);
    buckets.giveBack('a', 0);
    expect(buckets.take('a', 0)).toEqual({ allowed: true, tokens: 0 });
    buckets.giveBack('b', 0);
    buckets.giveBack('b', 0);
    expect(buckets.take('b', 0).tokens).toBe(2);
  });

  it('forget the least recently used key past maxBuckets; it comes back full', () => {
    const buckets = createTokenBuckets({ ...policy, maxBuckets: 2 });
    for (let index = 0; index < 3; index += 1) buckets.take('old', 0);
    buckets.take('middle', 0);
    buckets.take('old', 0); // touched: now the most recent
    buckets.take('new', 0);
    expect(buckets.size).toBe(2);
    expect(buckets.take('old', 0).allowed).toBe(false); // kept, still empty
    expect(buckets.take('middle', 0)).toEqual({ allowed: true, tokens: 2 }); // forgotten: full again
  });

  it('refill nothing when the clock steps back', () => {
    const buckets = createTokenBuckets(policy);
    for (let index = 0; index < 3; index += 1) buckets.take('a', 10_000);
    expect(buckets.take('a', 5_000).allowed).toBe(false);
    expect(buckets.take('a', 10_499).allowed).toBe(false);
  });

  it('say when the next token comes and when the bucket is full', () => {
    expect(secondsUntilToken(policy, 0)).toBe(1);
    expect(secondsUntilToken({ perSecond: 0.01 }, 0.5)).toBe(50);
    expect(secondsUntilToken(policy, 1.5)).toBe(0);
    expect(secondsUntilFull(policy, 0)).toBe(2);
    expect(secondsUntilFull(policy, 3)).toBe(0);
  });

  it.each([
    [{ perSecond: 0, burst: 1, maxBuckets: 1 }],
    [{ perSecond: 1, burst: -1, maxBuckets: 1 }],
    [{ perSecond: 1, burst: 1, maxBuckets: 0 }],
    [{ perSecond: Number.NaN, burst: 1, maxBuckets: 1 }],
  ])('refuse a policy that cannot hold: %j', (bad) => {
    expect(() => createTokenBuckets(bad)).toThrow('token buckets need perSecond > 0');
  });
});
