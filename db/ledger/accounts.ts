import type { EntityManager } from '@mikro-orm/postgresql';
import { assertInvariant } from '../../core/errors';
import type { Currency } from '../../core/currencies';
import { Account } from '../entities/account.entity';

/**
 * The house's accounts, one per code and currency (SEPA_SUSPENSE: eur only, unmatched incoming credits; NETWORK_FEES: the
 * networks' coins only, what the house paid the networks for withdrawals).
 */
export type SystemAccountCode =
  'EXTERNAL_DEPOSITS' | 'FEE_INCOME' | 'EXCHANGE_DESK' | 'CRYPTO_WITHDRAWALS' | 'SEPA_CLEARING' | 'SEPA_SUSPENSE' | 'NETWORK_FEES';

export async function findSystemAccount(em: EntityManager, code: SystemAccountCode, currency: Currency): Promise<Account> {
  const account = await em.findOne(Account, { kind: 'SYSTEM', systemCode: code, currency });
  assertInvariant(account, `system account ${code}/${currency} exists`);
  return account;
}

export async function findPartnerAccount(em: EntityManager, partnerId: string, currency: Currency): Promise<Account | null> {
  return em.findOne(Account, { kind: 'PARTNER', partnerId, currency });
}
