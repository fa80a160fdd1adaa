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
 *
 * Every answer says where the partner stands, in the IETF draft's headers
 * (draft-ietf-httpapi-ratelimit-headers): `RateLimit-Policy: "default";q=<burst>;w=<seconds>`,
 * the bucket as a quota of `burst` requests replenished over w seconds, and
 * `RateLimit: "default";r=<remaining>;t=<seconds>`, the requests left and the seconds until the
 * bucket is full again. A 429 also says when the next request is allowed (`Retry-After`).
 */
export function rateLimitMiddleware(limit: RateLimit, clock: Clock): Middleware<ApiState> {
  const buckets = new Map<string, { tokens: number; updatedMs: number }>();
  const policy = limit.perSecond > 0 ? `"default";q=${limit.burst};w=${Math.max(1, Math.ceil(limit.burst / limit.perSecond))}` : '';
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
    const allowed = bucket.tokens >= 1;
    if (allowed) bucket.tokens -= 1;
    ctx.set('RateLimit-Policy', policy);
    ctx.set('RateLimit', `"default";r=${Math.floor(bucket.tokens)};t=${Math.ceil((limit.burst - bucket.tokens) / limit.perSecond)}`);
    if (!allowed) {
      ctx.set('Retry-After', String(Math.ceil((1 - bucket.tokens) / limit.perSecond)));
      throw new HttpError('too-many-requests', `at most ${limit.perSecond} requests per second (bursts of ${limit.burst})`);
    }
    await next();
  };
}
