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
 * `Authorization: Bearer <key>`: sets ctx.state.partnerId (which scopes every query after it) and ctx.state.apiKey. An
 * expired key is refused like a revoked one, its expiry checked on every request; a key's use is recorded coarsely.
 *
 * A key known active passes from memory. Any other is looked up only while its client address (ctx.ip; IPv6 by /64) has
 * failures left, in a token bucket only failed lookups drain: a flood of made-up keys gets 429 without a round trip, while
 * a known key behind the same address is still served. A lookup holds a token while it runs (floods cannot overdraw).
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
