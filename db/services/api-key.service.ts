import { randomUUID } from 'node:crypto';
import type { EntityManager } from '@mikro-orm/postgresql';
import { apiKeyDisplayPrefix, generateApiKey, hashApiKey } from '../../core/api-keys';
import { DomainError } from '../../core/errors';
import { ApiKey } from '../entities/api-key.entity';
import { requirePartner } from './partner.service';

export interface IssuedApiKey {
  apiKeyId: string;
  apiKey: string;
}

/** The secret is returned once and never stored. */
export async function createApiKey(em: EntityManager, partnerId: string, now: Date): Promise<IssuedApiKey> {
  await requirePartner(em, partnerId);
  const apiKey = generateApiKey();
  const record = em.create(ApiKey, {
    id: randomUUID(),
    partnerId,
    keyHash: hashApiKey(apiKey),
    keyPrefix: apiKeyDisplayPrefix(apiKey),
    createdAt: now,
    revokedAt: null,
  });
  await em.flush();
  return { apiKeyId: record.id, apiKey };
}

export async function revokeApiKey(em: EntityManager, apiKeyId: string, now: Date): Promise<ApiKey> {
  const record = await em.findOne(ApiKey, { id: apiKeyId });
  if (!record) throw new DomainError('not-found', `no API key ${apiKeyId}`);
  record.revokedAt ??= now;
  await em.flush();
  return record;
}
