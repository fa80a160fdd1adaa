import type { Middleware } from 'koa';
import type { ApiState } from '../state';
import { hashApiKey } from '../../core/api-keys';
import type { ApiKeyResolver } from '../auth/api-key-cache';
import { HttpError } from '../http/http-error';

const BEARER = /^Bearer\s+(\S+)$/i;

/** `Authorization: Bearer <key>`; sets ctx.state.partnerId, which scopes every query after it. */
export function authMiddleware(apiKeys: ApiKeyResolver): Middleware<ApiState> {
  return async (ctx, next) => {
    const match = BEARER.exec(ctx.get('authorization'));
    if (!match?.[1]) throw new HttpError('unauthorized', 'send Authorization: Bearer <API key>');
    const partnerId = await apiKeys.partnerIdFor(hashApiKey(match[1]));
    if (!partnerId) throw new HttpError('unauthorized', 'unknown or revoked API key');
    ctx.state.partnerId = partnerId;
    await next();
  };
}
