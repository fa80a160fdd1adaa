import { randomUUID } from 'node:crypto';
import { LockMode } from '@mikro-orm/core';
import type { EntityManager } from '@mikro-orm/postgresql';
import { apiKeyDisplayPrefix, generateApiKey, hashApiKey, isApiKeyExpired } from '../../core/api-keys';
import type { ApiKeyScope } from '../../core/api-keys';
import { DomainError } from '../../core/errors';
import { ApiKey } from '../entities/api-key.entity';
import { requirePartner } from './partner.service';

export interface IssuedApiKey {
  apiKeyId: string;
  apiKey: string;
  scope: ApiKeyScope;
  expiresAt: Date | null;
}

export interface ApiKeyTerms {
  /** Default `payments`: everything, as every key could before scopes. */
  scope?: ApiKeyScope;
  /** Default null: never expires. */
  expiresAt?: Date | null;
}

/** The secret is returned once and never stored. */
export async function createApiKey(em: EntityManager, partnerId: string, now: Date, terms: ApiKeyTerms = {}): Promise<IssuedApiKey> {
  await requirePartner(em, partnerId);
  const issued = issue(em, partnerId, now, { scope: terms.scope ?? 'payments', expiresAt: terms.expiresAt ?? null });
  await em.flush();
  return issued;
}

function issue(em: EntityManager, partnerId: string, now: Date, terms: Required<ApiKeyTerms>): IssuedApiKey {
  const apiKey = generateApiKey();
  const record = em.create(ApiKey, {
    id: randomUUID(),
    partnerId,
    keyHash: hashApiKey(apiKey),
    keyPrefix: apiKeyDisplayPrefix(apiKey),
    scope: terms.scope,
    createdAt: now,
    expiresAt: terms.expiresAt,
    lastUsedAt: null,
    revokedAt: null,
    replacedBy: null,
  });
  return { apiKeyId: record.id, apiKey, scope: record.scope, expiresAt: record.expiresAt ?? null };
}

export async function revokeApiKey(em: EntityManager, apiKeyId: string, now: Date): Promise<ApiKey> {
  const record = await em.findOne(ApiKey, { id: apiKeyId });
  if (!record) throw new DomainError('not-found', `no API key ${apiKeyId}`);
  record.revokedAt ??= now;
  await em.flush();
  return record;
}

export interface RotatedApiKey extends IssuedApiKey {
  partnerId: string;
  /** The old key works until then (exclusive), and is refused from then on. */
  oldKeyExpiresAt: Date;
}

export type RotationRefusal = { refused: 'key-revoked' | 'key-expired' | 'key-already-rotated'; message: string };

/**
 * Issues a key of the same partner and scope in place of `apiKeyId`, which works `overlapMs` more (never beyond its own
 * expiry); the new key lives as long as the old one did. Rotated once: the row lock makes a concurrent second see the first.
 */
export async function rotateApiKey(
  em: EntityManager,
  apiKeyId: string,
  overlapMs: number,
  now: Date,
): Promise<RotatedApiKey | RotationRefusal> {
  const old = await em.findOne(ApiKey, { id: apiKeyId }, { lockMode: LockMode.PESSIMISTIC_WRITE });
  if (!old) throw new DomainError('not-found', `no API key ${apiKeyId}`);
  if (old.revokedAt) return { refused: 'key-revoked', message: `API key ${apiKeyId} was revoked at ${old.revokedAt.toISOString()}` };
  const expiresAt = old.expiresAt ?? null;
  if (expiresAt && isApiKeyExpired({ expiresAt }, now)) {
    return { refused: 'key-expired', message: `API key ${apiKeyId} expired at ${expiresAt.toISOString()}: create a new key instead` };
  }
  if (old.replacedBy) {
    return {
      refused: 'key-already-rotated',
      message: `API key ${apiKeyId} was already rotated to ${old.replacedBy}: rotate that key instead (or revoke it)`,
    };
  }
  const lifetimeMs = expiresAt === null ? null : expiresAt.getTime() - old.createdAt.getTime();
  const issued = issue(em, old.partnerId, now, {
    scope: old.scope,
    expiresAt: lifetimeMs === null ? null : new Date(now.getTime() + lifetimeMs),
  });
  const overlapEnds = new Date(now.getTime() + overlapMs);
  old.expiresAt = expiresAt !== null && expiresAt < overlapEnds ? expiresAt : overlapEnds;
  old.replacedBy = issued.apiKeyId;
  await em.flush();
  return { ...issued, partnerId: old.partnerId, oldKeyExpiresAt: old.expiresAt };
}

export interface ApiKeyListing {
  apiKeyId: string;
  /** The first characters of the key (`pk_` and six more), to match a key to its id; never the key. */
  keyPrefix: string;
  scope: ApiKeyScope;
  createdAt: Date;
  expiresAt: Date | null;
  lastUsedAt: Date | null;
  revokedAt: Date | null;
  replacedBy: string | null;
}

/** Keys an operator lists at most; they issue every one, so a partner never comes near it. */
export const MAX_LISTED_API_KEYS = 1000;

/** A partner's keys, newest first (partner-not-found for an unknown partner); never a key or its hash. */
export async function listApiKeys(em: EntityManager, partnerId: string): Promise<ApiKeyListing[]> {
  await requirePartner(em, partnerId);
  const keys = await em.find(ApiKey, { partnerId }, { orderBy: { createdAt: 'desc', id: 'desc' }, limit: MAX_LISTED_API_KEYS });
  return keys.map((key) => ({
    apiKeyId: key.id,
    keyPrefix: key.keyPrefix,
    scope: key.scope,
    createdAt: key.createdAt,
    expiresAt: key.expiresAt ?? null,
    lastUsedAt: key.lastUsedAt ?? null,
    revokedAt: key.revokedAt ?? null,
    replacedBy: key.replacedBy ?? null,
  }));
}
