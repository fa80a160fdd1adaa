import type { Middleware } from 'koa';
import type { ApiState } from '../state';
import { HttpError } from '../http/http-error';
import type { Clock } from '../dependencies';

export interface RateLimit {
  /** Sustained requests per second per partner; 0 turns limiting off. */
  perSecond: number;
  /** Requests a partner may send at once before the sustained rate applies. */
  burst: number;
}

/** Tracking is per process; past this many partners the idlest buckets are forgotten. */
const MAX_TRACKED_PARTNERS = 10_000;

/**
 * A token bucket per partner (after authentication). Per API process: with N processes a partner
 * gets up to N times the rate, which is fine for protecting the service from one noisy client.
 */
export function rateLimitMiddleware(limit: RateLimit, clock: Clock): Middleware<ApiState> {
  const buckets = new Map<string, { tokens: number; updatedMs: number }>();
  return async (ctx, next) => {
    if (limit.perSecond <= 0) {
      await next();
      return;
    }
    const partnerId = ctx.state.partnerId;
    const nowMs = clock.now().getTime();
    const bucket = buckets.get(partnerId) ?? { tokens: limit.burst, updatedMs: nowMs };
    bucket.tokens = Math.min(limit.burst, bucket.tokens + ((nowMs - bucket.updatedMs) / 1000) * limit.perSecond);
    bucket.updatedMs = nowMs;
    buckets.delete(partnerId); // re-inserted last: Map order doubles as least-recently-used order
    buckets.set(partnerId, bucket);
    if (buckets.size > MAX_TRACKED_PARTNERS) buckets.delete(buckets.keys().next().value as string);
    if (bucket.tokens < 1) {
      ctx.set('Retry-After', String(Math.ceil((1 - bucket.tokens) / limit.perSecond)));
      throw new HttpError('too-many-requests', `at most ${limit.perSecond} requests per second (bursts of ${limit.burst})`);
    }
    bucket.tokens -= 1;
    await next();
  };
}
