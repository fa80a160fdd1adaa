import type { MikroORM } from '@mikro-orm/postgresql';
import { CURRENCIES } from '../../core/currencies';
import type { Currency } from '../../core/currencies';
import { Account } from '../../db/entities/account.entity';
import { openOrm } from '../../db/orm';
import { postDeposit } from '../../db/services/deposit.service';
import { createApiKey } from '../../db/services/api-key.service';
import { createPartner } from '../../db/services/partner.service';
import { testStack } from './stack';
import { TEST_DEPOSIT_KEYS } from './test-config';

export async function openTestOrm(poolMax = 10): Promise<MikroORM> {
  return openOrm(testStack().databaseUrl, poolMax);
}

export interface TestPartner {
  partnerId: string;
  apiKey: string;
  apiKeyId: string;
  accounts: Record<Currency, Account>;
}

/** A fresh partner per test, so tests never share balances. */
export async function createTestPartner(
  orm: MikroORM,
  options: { feePercentage?: string; deposits?: Partial<Record<Currency, string>> } = {},
): Promise<TestPartner> {
  return orm.em.fork().transactional(async (em) => {
    const now = new Date();
    const partner = await createPartner(
      em,
      { name: `test partner ${Date.now()}`, feePercentage: options.feePercentage ?? '1' },
      now,
      TEST_DEPOSIT_KEYS,
    );
    const key = await createApiKey(em, partner.id, now);
    for (const [currency, amount] of Object.entries(options.deposits ?? {})) {
      const type = currency === 'eur' ? 'sepaDeposit' : 'cryptoDeposit';
      await postDeposit(em, { partnerId: partner.id, currency: currency as Currency, amount, type }, now);
    }
    const accounts = await em.find(Account, { partnerId: partner.id });
    const byCurrency = Object.fromEntries(accounts.map((account) => [account.currency, account])) as Record<Currency, Account>;
    for (const currency of CURRENCIES) if (!byCurrency[currency]) throw new Error(`no ${currency} account`);
    return { partnerId: partner.id, apiKey: key.apiKey, apiKeyId: key.apiKeyId, accounts: byCurrency };
  });
}
