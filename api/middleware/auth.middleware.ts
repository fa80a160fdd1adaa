import type { Middleware, ParameterizedContext } from 'koa';
import type { ApiState } from '../state';
import { hashApiKey, isApiKeyExpired } from '../../core/api-keys';
import type { ActiveApiKey } from '../../core/api-keys';
import type { Clock } from '../../core/clock';
import { clientAddressGroup } from '../../core/network-address';
import { createTokenBuckets, secondsUntilToken } from '../../core/token-buckets';
import type { ApiKeyResolver } from '../auth/api-key-cache';
import type { KeyUsage } from '../auth/key-usage';
import { HttpError } from '../http/http-error';

const BEARER = /^Bearer\s+(\S+)$/i;

export interface AuthFailureLimit {
  /** Failed authentications per second a client address gets back; 0 turns the limit off. */
  perSecond: number;
  /** Failed authentications a client address may have at once. */
  burst: number;
}

/** Tracking is per process; past this many client addresses the idlest are forgotten (they come back full). */
const MAX_TRACKED_ADDRESSES = 10_000;

/** One answer for a key that does not work, whatever the reason: it tells a guesser nothing. */
const KEY_REFUSED = 'unknown, revoked or expired API key';

/**
 * `Authorization: Bearer <key>`; sets ctx.state.partnerId, which scopes every query after it, and
 * ctx.state.apiKey (its id and scope: keyScopeMiddleware reads it). An expired key is refused
 * like a revoked one, by comparing its expiry (in memory with the key) with the clock on every
 * request; each key that passes has its use recorded, coarsely and without waiting (`usage`).
 *
 * A key this process knows to be active passes from memory. Any other is looked up only while its
 * client address (ctx.ip: the socket's, or with TRUST_PROXY the proxy's X-Forwarded-For; an IPv6
 * address by its /64) has failures left: a token bucket per address that only failed lookups
 * drain, so a flood of made-up keys is answered 429 without a database round trip, while a
 * partner behind the same address whose key is in memory is still served. A lookup holds a token
 * while it runs (concurrent floods cannot overdraw) and gives it back when the key is active.
 */
export function authMiddleware(
  apiKeys: ApiKeyResolver,
  failureLimit: AuthFailureLimit,
  clock: Clock,
  usage?: KeyUsage,
): Middleware<ApiState> {
  const failures = failureLimit.perSecond > 0 ? createTokenBuckets({ ...failureLimit, maxBuckets: MAX_TRACKED_ADDRESSES }) : undefined;

  const lookUp = async (ctx: ParameterizedContext<ApiState>, keyHash: string) => {
    if (!failures) return apiKeys.keyFor(keyHash);
    const clientAddress = clientAddressGroup(ctx.ip);
    const attempt = failures.take(clientAddress, clock.now().getTime());
    if (!attempt.allowed) {
      ctx.set('Retry-After', String(secondsUntilToken(failureLimit, attempt.tokens)));
      throw new HttpError(
        'too-many-requests',
        `too many failed authentications from this address: at most ${failureLimit.perSecond} per second (bursts of ${failureLimit.burst})`,
      );
    }
    let key: ActiveApiKey | undefined;
    try {
      key = await apiKeys.keyFor(keyHash);
    } catch (error) {
      // The database failed, not the key: that is no failed authentication.
      failures.giveBack(clientAddress, clock.now().getTime());
      throw error;
    }
    // An expired key is a failed authentication like an unknown one.
    if (key !== undefined && !isApiKeyExpired(key, clock.now())) failures.giveBack(clientAddress, clock.now().getTime());
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
