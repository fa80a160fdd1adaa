import { randomUUID } from 'node:crypto';
import type { EntityManager } from '@mikro-orm/postgresql';
import { PartnerUser } from '../entities/partner-user.entity';
import { requirePartner } from './partner.service';

export type UserFields = Omit<PartnerUser, 'id' | 'partnerId' | 'createdAt' | 'updatedAt'>;

/** Registers a partner's user or updates their KYC fields; the external id stays the key. */
export async function upsertUser(em: EntityManager, partnerId: string, fields: UserFields, now: Date): Promise<PartnerUser> {
  await requirePartner(em, partnerId);
  const existing = await em.findOne(PartnerUser, { partnerId, externalUserId: fields.externalUserId });
  if (existing) {
    em.assign(existing, { ...fields, updatedAt: now });
    await em.flush();
    return existing;
  }
  const user = em.create(PartnerUser, { id: randomUUID(), partnerId, ...fields, createdAt: now, updatedAt: now });
  await em.flush();
  return user;
}
