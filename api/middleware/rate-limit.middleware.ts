import type { Middleware } from 'koa';
import type { ApiState } from '../state';
import { HttpError } from '../http/http-error';
import type { Clock } from '../dependencies';
import { createTokenBuckets, secondsUntilFull, secondsUntilToken } from '../../core/token-buckets';

export interface RateLimit {
  /** Sustained requests per second per partner; 0 turns limiting off. */
  perSecond: number;
  /** Requests a partner may send at once before the sustained rate applies. */
  burst: number;
}

/** Tracking is per process; past this many partners the idlest buckets are forgotten. */
const MAX_TRACKED_PARTNERS = 10_000;

/**
 * A token bucket per partner, per API process (N processes allow N times the rate: enough against one noisy client).
 * Every answer carries draft-ietf-httpapi-ratelimit-headers: `RateLimit-Policy: "default";q=<burst>;w=<seconds>` and
 * `RateLimit: "default";r=<remaining>;t=<seconds until full>`; a 429 also Retry-After.
 */
export function rateLimitMiddleware(limit: RateLimit, clock: Clock): Middleware<ApiState> {
  if (limit.perSecond <= 0) return (_ctx, next) => next();
  const buckets = createTokenBuckets({ ...limit, maxBuckets: MAX_TRACKED_PARTNERS });
  const policy = `"default";q=${limit.burst};w=${Math.max(1, Math.ceil(limit.burst / limit.perSecond))}`;
  return async (ctx, next) => {
    const { allowed, tokens } = buckets.take(ctx.state.partnerId, clock.now().getTime());
    ctx.set('RateLimit-Policy', policy);
    ctx.set('RateLimit', `"default";r=${Math.floor(tokens)};t=${secondsUntilFull(limit, tokens)}`);
    if (!allowed) {
      ctx.set('Retry-After', String(secondsUntilToken(limit, tokens)));
      throw new HttpError('too-many-requests', `at most ${limit.perSecond} requests per second (bursts of ${limit.burst})`);
    }
    await next();
  };
}
