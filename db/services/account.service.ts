import type { EntityManager } from '@mikro-orm/postgresql';
import type { Currency } from '../../core/currencies';
import { DomainError } from '../../core/errors';
import { Account } from '../entities/account.entity';
import type { FiatAccountStatus } from '../entities/account.entity';

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
