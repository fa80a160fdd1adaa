import type { Middleware, ParameterizedContext } from 'koa';
import type { ApiState } from '../state';
import { hashApiKey, isApiKeyExpired } from '../../core/api-keys';
import type { ActiveApiKey } from '../../core/api-keys';
import type { Clock } from '../../core/clock';
import { clientAddressGroups } from '../../core/network-address';
import { createTokenBuckets, secondsUntilToken } from '../../core/token-buckets';
import type { TokenBuckets } from '../../core/token-buckets';
import type { ApiKeyResolver } from '../auth/api-key-cache';
import type { KeyUsage } from '../auth/key-usage';
import { HttpError } from '../http/http-error';

const BEARER = /^Bearer\s+(\S+)$/i;

export interface AuthFailureLimit {
  /** Failed authentications per second a client address gets back; 0 turns the limit off. */
  perSecond: number;
  /** Failed authentications a client address may have at once. */
  burst: number;
  /** Lookups of keys this process does not know, per second, from every address together (as many at once); absent, none. */
  processPerSecond?: number;
}

/** Tracking is per process; past this many client address groups the idlest are forgotten (they come back full). */
const MAX_TRACKED_ADDRESSES = 10_000;
/** A wider group (a /56, a /48, an IPv4 /24) may fail this many times as often as the group one level narrower. */
const WIDER_GROUP_FACTOR = 4;
/** The process-wide bucket's one key. */
const EVERY_ADDRESS = 'every address';

/** One answer for a key that does not work, whatever the reason: it tells a guesser nothing. */
const KEY_REFUSED = 'unknown, revoked or expired API key';

/**
 * `Authorization: Bearer <key>`: sets ctx.state.partnerId (which scopes every query after it) and ctx.state.apiKey. An
 * expired key is refused like a revoked one, its expiry checked on every request; a key's use is recorded coarsely.
 *
 * A key known active passes from memory. Any other is looked up only while its client address (ctx.ip) has failures left
 * in every group it is counted in (clientAddressGroups: an IPv6 /64, /56 and /48, an IPv4 address and its /24; each wider
 * group 4 times the budget of the one below), and while the process has lookups left for all addresses together: token
 * buckets only failed lookups drain. A flood of made-up keys gets 429 without a round trip, from one address or from a
 * whole /48, while a known key behind the same address is still served; a key this process has not yet seen waits out the
 * flood like any other. A lookup holds its tokens while it runs (floods cannot overdraw).
 */
export function authMiddleware(
  apiKeys: ApiKeyResolver,
  failureLimit: AuthFailureLimit,
  clock: Clock,
  usage?: KeyUsage,
): Middleware<ApiState> {
  const failures = failureBuckets(failureLimit);

  const lookUp = async (ctx: ParameterizedContext<ApiState>, keyHash: string) => {
    if (!failures) return apiKeys.keyFor(keyHash);
    const nowMs = clock.now().getTime();
    const attempt = failures.take(ctx.ip, nowMs);
    if (attempt.refusedBy) {
      ctx.set('Retry-After', String(attempt.refusedBy.retryAfterSeconds));
      throw new HttpError('too-many-requests', attempt.refusedBy.reason);
    }
    let key: ActiveApiKey | undefined;
    try {
      key = await apiKeys.keyFor(keyHash);
    } catch (error) {
      // The database failed, not the key: that is no failed authentication.
      attempt.giveBack(clock.now().getTime());
      throw error;
    }
    // An expired key is a failed authentication like an unknown one.
    if (key !== undefined && !isApiKeyExpired(key, clock.now())) attempt.giveBack(clock.now().getTime());
    return key;
  };

  return async (ctx, next) => {
    const match = BEARER.exec(ctx.get('authorization'));
    if (!match?.[1]) throw new HttpError('unauthorized', 'send Authorization: Bearer <API key>');
    const keyHash = hashApiKey(match[1]);
    const key = apiKeys.knownKeyFor(keyHash) ?? (await lookUp(ctx, keyHash));
    if (!key || isApiKeyExpired(key, clock.now())) throw new HttpError('unauthorized', KEY_REFUSED);
    ctx.state.partnerId = key.partnerId;
    ctx.state.apiKey = { apiKeyId: key.apiKeyId, scope: key.scope };
    usage?.used(key.apiKeyId);
    await next();
  };
}

interface FailureAttempt {
  /** Set when a bucket had no token: why, and when to come back; nothing was taken then. */
  refusedBy?: { reason: string; retryAfterSeconds: number };
  /** Returns the tokens taken (the key was found, or the database failed). */
  giveBack(nowMs: number): void;
}

/** The nested per-address buckets and the process-wide one, taken from together or not at all; undefined when off. */
function failureBuckets(limit: AuthFailureLimit): { take(ip: string, nowMs: number): FailureAttempt } | undefined {
  if (!(limit.perSecond > 0)) return undefined;
  const levels = [0, 1, 2].map((level) => {
    const factor = WIDER_GROUP_FACTOR ** level;
    const policy = { perSecond: limit.perSecond * factor, burst: limit.burst * factor };
    return { policy, buckets: createTokenBuckets({ ...policy, maxBuckets: MAX_TRACKED_ADDRESSES }) };
  });
  const processPolicy = limit.processPerSecond ? { perSecond: limit.processPerSecond, burst: limit.processPerSecond } : undefined;
  const everyAddress = processPolicy && createTokenBuckets({ ...processPolicy, maxBuckets: 1 });
  return {
    take(ip, nowMs) {
      const taken: Array<{ buckets: TokenBuckets; key: string }> = [];
      const giveBack = (at: number) => taken.forEach(({ buckets, key }) => buckets.giveBack(key, at));
      const draw = (buckets: TokenBuckets, key: string, policy: { perSecond: number; burst: number }, reason: string) => {
        const attempt = buckets.take(key, nowMs);
        if (attempt.allowed) {
          taken.push({ buckets, key });
          return undefined;
        }
        giveBack(nowMs);
        return { reason, retryAfterSeconds: secondsUntilToken(policy, attempt.tokens) };
      };
      for (const { group, level } of clientAddressGroups(ip)) {
        const { policy, buckets } = levels[level]!;
        const refusedBy = draw(
          buckets,
          group,
          policy,
          `too many failed authentications from ${level === 0 ? 'this address' : group}: at most ${policy.perSecond} per second (bursts of ${policy.burst})`,
        );
        if (refusedBy) return { refusedBy, giveBack: () => undefined };
      }
      if (everyAddress && processPolicy) {
        const refusedBy = draw(
          everyAddress,
          EVERY_ADDRESS,
          processPolicy,
          `too many unknown API keys from all clients together: this API process looks up at most ${processPolicy.perSecond} per second; a key it already knows is served`,
        );
        if (refusedBy) return { refusedBy, giveBack: () => undefined };
      }
      return { giveBack };
    },
  };
}
