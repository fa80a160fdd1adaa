/** How one family of buckets fills: `burst` tokens at most, `perSecond` back each second. */
export interface TokenBucketPolicy {
  /** Tokens added per second; positive (a caller that turns limiting off does not ask). */
  perSecond: number;
  /** The most a bucket holds: what may be spent at once after a quiet spell. */
  burst: number;
  /** Past this many buckets the least recently used is forgotten (it comes back full). */
  maxBuckets: number;
}

export interface TokenTake {
  allowed: boolean;
  /** Tokens left after this take (a fraction while refilling). */
  tokens: number;
}

/** In memory, refilled when touched (an idle key costs nothing); Map order is LRU order, so the idlest is forgotten first. */
export interface TokenBuckets {
  /** Takes one token from key's bucket if there is a whole one. */
  take(key: string, nowMs: number): TokenTake;
  /** Puts back a token taken for an attempt that turned out not to count (never beyond burst). */
  giveBack(key: string, nowMs: number): void;
  readonly size: number;
}

export function createTokenBuckets(policy: TokenBucketPolicy): TokenBuckets {
  if (!(policy.perSecond > 0) || !(policy.burst >= 0) || !(policy.maxBuckets >= 1)) {
    throw new Error(`token buckets need perSecond > 0, burst >= 0 and maxBuckets >= 1, got ${JSON.stringify(policy)}`);
  }
  const buckets = new Map<string, { tokens: number; updatedMs: number }>();

  /** The key's bucket refilled to nowMs, moved last (most recently used); the idlest dropped past the cap. */
  const touch = (key: string, nowMs: number) => {
    const bucket = buckets.get(key) ?? { tokens: policy.burst, updatedMs: nowMs };
    // A clock that steps back refills nothing rather than draining the bucket.
    const elapsedMs = Math.max(0, nowMs - bucket.updatedMs);
    bucket.tokens = Math.min(policy.burst, bucket.tokens + (elapsedMs / 1000) * policy.perSecond);
    bucket.updatedMs = Math.max(bucket.updatedMs, nowMs);
    buckets.delete(key);
    buckets.set(key, bucket);
    if (buckets.size > policy.maxBuckets) buckets.delete(buckets.keys().next().value as string);
    return bucket;
  };

  return {
    take(key, nowMs) {
      const bucket = touch(key, nowMs);
      const allowed = bucket.tokens >= 1;
      if (allowed) bucket.tokens -= 1;
      return { allowed, tokens: bucket.tokens };
    },
    giveBack(key, nowMs) {
      const bucket = touch(key, nowMs);
      bucket.tokens = Math.min(policy.burst, bucket.tokens + 1);
    },
    get size() {
      return buckets.size;
    },
  };
}

/** Whole seconds until a bucket holding `tokens` has one to give (Retry-After). */
export function secondsUntilToken(policy: Pick<TokenBucketPolicy, 'perSecond'>, tokens: number): number {
  return Math.max(0, Math.ceil((1 - tokens) / policy.perSecond));
}

/** Whole seconds until a bucket holding `tokens` is full again. */
export function secondsUntilFull(policy: Pick<TokenBucketPolicy, 'perSecond' | 'burst'>, tokens: number): number {
  return Math.ceil((policy.burst - tokens) / policy.perSecond);
}
