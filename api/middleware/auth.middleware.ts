import type { Middleware, ParameterizedContext } from 'koa';
import type { ApiState } from '../state';
import { hashApiKey } from '../../core/api-keys';
import type { Clock } from '../../core/clock';
import { clientAddressGroup } from '../../core/network-address';
import { createTokenBuckets, secondsUntilToken } from '../../core/token-buckets';
import type { ApiKeyResolver } from '../auth/api-key-cache';
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

/**
 * `Authorization: Bearer <key>`; sets ctx.state.partnerId, which scopes every query after it.
 *
 * A key this process knows to be active passes from memory. Any other is looked up only while its
 * client address (ctx.ip: the socket's, or with TRUST_PROXY the proxy's X-Forwarded-For; an IPv6
 * address by its /64) has failures left: a token bucket per address that only failed lookups
 * drain, so a flood of made-up keys is answered 429 without a database round trip, while a
 * partner behind the same address whose key is in memory is still served. A lookup holds a token
 * while it runs (concurrent floods cannot overdraw) and gives it back when the key is active.
 */
export function authMiddleware(apiKeys: ApiKeyResolver, failureLimit: AuthFailureLimit, clock: Clock): Middleware<ApiState> {
  const failures = failureLimit.perSecond > 0 ? createTokenBuckets({ ...failureLimit, maxBuckets: MAX_TRACKED_ADDRESSES }) : undefined;

  const lookUp = async (ctx: ParameterizedContext<ApiState>, keyHash: string) => {
    if (!failures) return apiKeys.partnerIdFor(keyHash);
    const clientAddress = clientAddressGroup(ctx.ip);
    const attempt = failures.take(clientAddress, clock.now().getTime());
    if (!attempt.allowed) {
      ctx.set('Retry-After', String(secondsUntilToken(failureLimit, attempt.tokens)));
      throw new HttpError(
        'too-many-requests',
        `too many failed authentications from this address: at most ${failureLimit.perSecond} per second (bursts of ${failureLimit.burst})`,
      );
    }
    let partnerId: string | undefined;
    try {
      partnerId = await apiKeys.partnerIdFor(keyHash);
    } catch (error) {
      // The database failed, not the key: that is no failed authentication.
      failures.giveBack(clientAddress, clock.now().getTime());
      throw error;
    }
    if (partnerId !== undefined) failures.giveBack(clientAddress, clock.now().getTime());
    return partnerId;
  };

  return async (ctx, next) => {
    const match = BEARER.exec(ctx.get('authorization'));
    if (!match?.[1]) throw new HttpError('unauthorized', 'send Authorization: Bearer <API key>');
    const keyHash = hashApiKey(match[1]);
    const partnerId = apiKeys.knownPartnerIdFor(keyHash) ?? (await lookUp(ctx, keyHash));
    if (!partnerId) throw new HttpError('unauthorized', 'unknown or revoked API key');
    ctx.state.partnerId = partnerId;
    await next();
  };
}
