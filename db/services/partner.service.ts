import { randomUUID } from 'node:crypto';
import type { EntityManager } from '@mikro-orm/postgresql';
import { CRYPTO_CURRENCIES } from '../../core/currencies';
import type { DepositAccountKeys } from '../../core/deposit-addresses';
import { DomainError } from '../../core/errors';
import { Account } from '../entities/account.entity';
import { Partner } from '../entities/partner.entity';
import { newIban } from './account-identifiers';
import { partnerDepositAddresses } from './deposit-address.service';

export interface NewPartner {
  id?: string;
  name: string;
  feePercentage: string;
}

/** A partner with an active EUR account and one crypto account per currency at zero, with its derived deposit addresses. */
export async function createPartner(em: EntityManager, input: NewPartner, now: Date, depositKeys: DepositAccountKeys): Promise<Partner> {
  const [{ deposit_index: depositIndex }] = await em.execute<[{ deposit_index: number }]>(
    `select nextval('partner_deposit_index_seq')::integer as deposit_index`,
  );
  const addresses = await partnerDepositAddresses(em, depositKeys, depositIndex);
  const partner = em.create(Partner, {
    id: input.id ?? randomUUID(),
    name: input.name,
    feePercentage: input.feePercentage,
    depositIndex,
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
      walletAddress: addresses[currency],
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
