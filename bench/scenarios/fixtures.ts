import type { MikroORM } from '@mikro-orm/postgresql';
import type { Currency } from '../../core/currencies';
import { accountKeysFromSeed, generateDepositSeed, parseDepositSeed } from '../../core/deposit-seed';
import { Account } from '../../db/entities/account.entity';
import { createApiKey } from '../../db/services/api-key.service';
import { postDeposit } from '../../db/services/deposit.service';
import { createPartner } from '../../db/services/partner.service';

/** A seed of the run's own: bench partners' addresses are derived like everyone's, from keys nobody keeps. */
const BENCH_DEPOSIT_KEYS = accountKeysFromSeed(parseDepositSeed(generateDepositSeed()));

export interface BenchPartner {
  partnerId: string;
  apiKey: string;
  /** Account id per currency. */
  accounts: Record<string, string>;
}

/**
 * A partner with an API key, funded through the project's own deposit service (ledger transfers
 * from EXTERNAL_DEPOSITS), as an operator's deposit would be. `depositsEach` posts that many
 * deposits per currency (history scenarios need entries).
 */
export async function createBenchPartner(
  orm: MikroORM,
  name: string,
  deposits: Partial<Record<Currency, string>>,
  depositsEach = 1,
): Promise<BenchPartner> {
  return orm.em.fork().transactional(async (em) => {
    const now = new Date();
    const partner = await createPartner(em, { name, feePercentage: '1' }, now, BENCH_DEPOSIT_KEYS);
    const { apiKey } = await createApiKey(em, partner.id, now);
    for (const [currency, amount] of Object.entries(deposits) as [Currency, string][]) {
      const type = currency === 'eur' ? 'sepaDeposit' : 'cryptoDeposit';
      for (let index = 0; index < depositsEach; index += 1) {
        await postDeposit(em, { partnerId: partner.id, currency, amount, type }, now);
      }
    }
    const accounts = await em.find(Account, { partnerId: partner.id });
    return { partnerId: partner.id, apiKey, accounts: Object.fromEntries(accounts.map((account) => [account.currency, account.id])) };
  });
}

export async function createBenchPartners(
  orm: MikroORM,
  prefix: string,
  count: number,
  deposits: Partial<Record<Currency, string>>,
): Promise<BenchPartner[]> {
  const partners: BenchPartner[] = [];
  for (let index = 0; index < count; index += 1) partners.push(await createBenchPartner(orm, `bench ${prefix} ${index + 1}`, deposits));
  return partners;
}

export function accountOf(partner: BenchPartner, currency: Currency): string {
  const id = partner.accounts[currency];
  if (!id) throw new Error(`bench partner ${partner.partnerId} has no ${currency} account`);
  return id;
}

export function bearer(partner: BenchPartner): Record<string, string> {
  return { authorization: `Bearer ${partner.apiKey}` };
}
