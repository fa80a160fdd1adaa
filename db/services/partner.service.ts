import { randomUUID } from 'node:crypto';
import type { EntityManager } from '@mikro-orm/postgresql';
import { apiKeyDisplayPrefix, generateApiKey, hashApiKey } from '../../core/api-keys';
import { CRYPTO_CURRENCIES } from '../../core/currencies';
import type { Currency } from '../../core/currencies';
import { DomainError } from '../../core/errors';
import { Account } from '../entities/account.entity';
import type { FiatAccountStatus } from '../entities/account.entity';
import { ApiKey } from '../entities/api-key.entity';
import { Partner } from '../entities/partner.entity';
import { PartnerUser } from '../entities/partner-user.entity';
import { newIban, newWalletAddress } from './account-identifiers';

export interface NewPartner {
  id?: string;
  name: string;
  feePercentage: string;
}

/** A partner with an active EUR account and one crypto account per currency, all at zero. */
export async function createPartner(em: EntityManager, input: NewPartner, now: Date): Promise<Partner> {
  const partner = em.create(Partner, {
    id: input.id ?? randomUUID(),
    name: input.name,
    feePercentage: input.feePercentage,
    createdAt: now,
  });
  const zero = { postedAmount: '0', pendingOutAmount: '0', pendingInAmount: '0', createdAt: now };
  em.create(Account, {
    id: randomUUID(),
    kind: 'PARTNER',
    partnerId: partner.id,
    currency: 'eur',
    iban: newIban(),
    fiatStatus: 'ACTIVE',
    ...zero,
  });
  for (const currency of CRYPTO_CURRENCIES) {
    em.create(Account, {
      id: randomUUID(),
      kind: 'PARTNER',
      partnerId: partner.id,
      currency,
      walletAddress: newWalletAddress(currency),
      ...zero,
    });
  }
  await em.flush();
  return partner;
}

export async function requirePartner(em: EntityManager, partnerId: string): Promise<Partner> {
  const partner = await em.findOne(Partner, { id: partnerId });
  if (!partner) throw new DomainError('partner-not-found', `no partner ${partnerId}`);
  return partner;
}

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

export async function setFiatAccountStatus(
  em: EntityManager,
  partnerId: string,
  currency: Currency,
  status: FiatAccountStatus,
): Promise<Account> {
  const account = await em.findOne(Account, { kind: 'PARTNER', partnerId, currency });
  if (!account) throw new DomainError('not-found', `partner ${partnerId} has no ${currency} account`);
  if (account.iban === null || account.iban === undefined) {
    throw new DomainError('invalid-request', `${currency} is not a fiat account; only fiat accounts have a status`);
  }
  account.fiatStatus = status;
  await em.flush();
  return account;
}

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
