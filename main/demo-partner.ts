import fs from 'node:fs';
import path from 'node:path';
import type { MikroORM } from '@mikro-orm/postgresql';
import type { Currency } from '../core/currencies';
import type { DepositAccountKeys } from '../core/deposit-addresses';
import { Partner } from '../db/entities/partner.entity';
import { postDeposit } from '../db/services/deposit.service';
import { createApiKey } from '../db/services/api-key.service';
import { createPartner } from '../db/services/partner.service';

/** Fixed id, so every start finds the same demo partner. */
export const DEMO_PARTNER_ID = '00000000-0000-4000-8000-00000000d3e0';

const DEMO_DEPOSITS: ReadonlyArray<{ currency: Currency; amount: string }> = [
  { currency: 'eur', amount: '100000.00' },
  { currency: 'btc', amount: '2.5' },
  { currency: 'doge', amount: '50000' },
  { currency: 'eth', amount: '40' },
  { currency: 'ltc', amount: '300' },
  { currency: 'pol', amount: '100000' },
  { currency: 'usdc', amount: '250000' },
];

/** On first start, a funded demo partner; its API key is kept in the data folder, as the database keeps just the hash. */
export async function ensureDemoPartner(
  orm: MikroORM,
  dataDir: string,
  depositKeys: DepositAccountKeys,
): Promise<{ partnerId: string; apiKey: string }> {
  const keyFile = path.join(dataDir, 'demo-api-key');
  return orm.em.fork().transactional(async (em) => {
    const now = new Date();
    const existing = await em.findOne(Partner, { id: DEMO_PARTNER_ID });
    if (!existing) {
      await createPartner(em, { id: DEMO_PARTNER_ID, name: 'Demo Partner', feePercentage: '1' }, now, depositKeys);
      for (const deposit of DEMO_DEPOSITS) {
        const type = deposit.currency === 'eur' ? 'sepaDeposit' : 'cryptoDeposit';
        await postDeposit(em, { partnerId: DEMO_PARTNER_ID, currency: deposit.currency, amount: deposit.amount, type }, now);
      }
    }
    if (existing && fs.existsSync(keyFile)) {
      return { partnerId: DEMO_PARTNER_ID, apiKey: fs.readFileSync(keyFile, 'utf8').trim() };
    }
    const { apiKey } = await createApiKey(em, DEMO_PARTNER_ID, now);
    fs.mkdirSync(dataDir, { recursive: true });
    fs.writeFileSync(keyFile, `${apiKey}\n`, { mode: 0o600 });
    return { partnerId: DEMO_PARTNER_ID, apiKey };
  });
}
