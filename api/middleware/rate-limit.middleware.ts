import { setTimeout as sleep } from 'node:timers/promises';
import type { Middleware } from 'koa';
import type { ApiState } from '../state';
import { HttpError } from '../http/http-error';
import type { Clock } from '../dependencies';
import { createTokenBuckets, secondsUntilFull, secondsUntilToken } from '../../core/token-buckets';
import type { TokenBuckets } from '../../core/token-buckets';

export interface RateLimit {
  /** Sustained requests per second per API key; 0 turns limiting off. */
  perSecond: number;
  /** Requests a key may send at once before the sustained rate applies. */
  burst: number;
  /** Requests that change something (every POST and DELETE, and get-lock), per partner across its keys; absent or 0, none. */
  writes?: { perSecond: number; burst: number };
}

/** Tracking is per process; past this many keys (or partners) the idlest buckets are forgotten. */
const MAX_TRACKED = 10_000;
/**
 * A 429 is answered after this long (or Retry-After, if sooner): a client that sends again as soon as it is answered
 * (a flood's loop) then costs a fraction of the CPU it would, which the other partners' requests share. A client that
 * waits as Retry-After says loses nothing.
 */
const REFUSAL_HOLD_MS = 1_000;

/** One family of buckets, named as the headers name it. */
interface Quota {
  name: 'default' | 'writes';
  limit: { perSecond: number; burst: number };
  buckets: TokenBuckets;
  /** Whose bucket a request draws from. */
  owner: (state: ApiState) => string;
}

/**
 * Token buckets per API process (N processes allow N times the rate: enough against one noisy client): every request
 * draws from its key's bucket, so a leaked `read` key cannot starve the partner's `payments` key; a request that changes
 * something draws from its partner's `writes` bucket too, which is smaller, since each one starts work the workers must
 * finish. Mounted after the scope check: a request its key may not make never spends a token.
 *
 * Every answer carries draft-ietf-httpapi-ratelimit-headers, one item per quota the request drew from:
 * `RateLimit-Policy: "default";q=<burst>;w=<seconds>` and `RateLimit: "default";r=<remaining>;t=<seconds until full>`;
 * a 429 also Retry-After, from the quota that refused, and comes after REFUSAL_HOLD_MS at most.
 */
export function createRateLimiter(limit: RateLimit, clock: Clock): (writes: boolean) => Middleware<ApiState> {
  const quota = (name: Quota['name'], of: { perSecond: number; burst: number }, owner: Quota['owner']): Quota | undefined =>
    of.perSecond > 0 ? { name, limit: of, buckets: createTokenBuckets({ ...of, maxBuckets: MAX_TRACKED }), owner } : undefined;
  const perKey = quota('default', limit, (state) => state.apiKey.apiKeyId);
  const perPartnerWrites = limit.writes && quota('writes', limit.writes, (state) => state.partnerId);
  return (writes) => {
    const quotas = [perKey, writes ? perPartnerWrites : undefined].filter((each): each is Quota => each !== undefined);
    if (quotas.length === 0) return (_ctx, next) => next();
    const policy = quotas
      .map(({ name, limit: of }) => `"${name}";q=${of.burst};w=${Math.max(1, Math.ceil(of.burst / of.perSecond))}`)
      .join(', ');
    return async (ctx, next) => {
      const nowMs = clock.now().getTime();
      const taken = quotas.map((each) => ({
        quota: each,
        owner: each.owner(ctx.state),
        take: each.buckets.take(each.owner(ctx.state), nowMs),
      }));
      ctx.set('RateLimit-Policy', policy);
      ctx.set(
        'RateLimit',
        taken
          .map(({ quota: { name, limit: of }, take }) => `"${name}";r=${Math.floor(take.tokens)};t=${secondsUntilFull(of, take.tokens)}`)
          .join(', '),
      );
      const refused = taken.find(({ take }) => !take.allowed);
      if (refused) {
        // What the other quotas gave for a request that is not served goes back.
        for (const { quota: each, owner, take } of taken) if (take.allowed) each.buckets.giveBack(owner, nowMs);
        const retryAfterSeconds = secondsUntilToken(refused.quota.limit, refused.take.tokens);
        ctx.set('Retry-After', String(retryAfterSeconds));
        await sleep(Math.min(REFUSAL_HOLD_MS, retryAfterSeconds * 1000));
        const { perSecond, burst } = refused.quota.limit;
        throw new HttpError(
          'too-many-requests',
          refused.quota.name === 'writes'
            ? `at most ${perSecond} requests per second that change something, per partner (bursts of ${burst})`
            : `at most ${perSecond} requests per second per API key (bursts of ${burst})`,
        );
      }
      await next();
    };
  };
}
