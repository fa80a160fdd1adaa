import { randomUUID } from 'node:crypto';
import pg from 'pg';
import type { MikroORM } from '@mikro-orm/postgresql';
import { CRYPTO_CURRENCIES } from '../../core/currencies';
import { depositAddresses } from '../../core/deposit-addresses';
import { openOrm } from '../../db/orm';
import { newWalletAddress } from '../../db/services/account-identifiers';
import { rederiveDevelopmentDepositAddresses } from '../../db/services/deposit-address.service';
import { createPartner } from '../../db/services/partner.service';
import { testStack } from '../support/stack';
import { TEST_DEPOSIT_KEYS } from '../support/test-config';

/**
 * Deposit indexes come from one sequence, whoever writes the partner; `npm start` then gives
 * partners whose wallets another seed derived (or none did) the addresses of its development
 * seed. Runs on a database of its own, created and dropped here, since it re-derives every partner.
 */
const database = `deposit_index_${randomUUID().replaceAll('-', '')}`;
const urlOf = (name: string): string => {
  const url = new URL(testStack().databaseAdminUrl!);
  url.pathname = `/${name}`;
  return url.toString();
};

let admin: pg.Client;
let db: pg.Client;
let orm: MikroORM | undefined;

beforeAll(async () => {
  admin = new pg.Client({ connectionString: testStack().databaseAdminUrl! });
  await admin.connect();
  await admin.query(`create database ${database}`);
  orm = await openOrm(urlOf(database), 2);
  db = new pg.Client({ connectionString: urlOf(database) });
  await db.connect();
});

afterAll(async () => {
  await db?.end();
  await orm?.close(true);
  await admin.query(`drop database if exists ${database}`);
  await admin.end();
});

/** A partner whose wallets no deposit key derived. */
async function insertPartnerWithRandomWallets(): Promise<string> {
  const partnerId = randomUUID();
  await db.query(`insert into partner (id, name, fee_percentage) values ($1, 'Random wallets', 1)`, [partnerId]);
  for (const currency of CRYPTO_CURRENCIES) {
    await db.query(`insert into account (id, kind, partner_id, currency, wallet_address) values ($1, 'PARTNER', $2, $3, $4)`, [
      randomUUID(),
      partnerId,
      currency,
      newWalletAddress(currency),
    ]);
  }
  return partnerId;
}

async function walletsOf(partnerId: string): Promise<Record<string, string>> {
  const { rows } = await db.query<{ currency: string; wallet_address: string }>(
    `select currency, wallet_address from account where partner_id = $1 and wallet_address is not null`,
    [partnerId],
  );
  return Object.fromEntries(rows.map((row) => [row.currency, row.wallet_address]));
}

it('numbers partners from one sequence, and npm start derives the addresses of those it did not derive, once', async () => {
  await orm!.getMigrator().up();
  const first = await insertPartnerWithRandomWallets();
  const second = await insertPartnerWithRandomWallets();
  const third = await insertPartnerWithRandomWallets();

  const { rows } = await db.query<{ id: string; deposit_index: number }>(`select id, deposit_index from partner order by deposit_index`);
  expect(rows).toEqual([
    { id: first, deposit_index: 0 },
    { id: second, deposit_index: 1 },
    { id: third, deposit_index: 2 },
  ]);
  const created = await orm!.em
    .fork()
    .transactional((em) => createPartner(em, { name: 'New partner', feePercentage: '1' }, new Date(), TEST_DEPOSIT_KEYS));
  expect(created.depositIndex).toBe(3);
  // The sequence's alone, whoever writes: after createPartner, plain SQL gets the next.
  await db.query(`insert into partner (id, name, fee_percentage) values ($1, 'Raw', 1)`, [randomUUID()]);
  expect((await db.query(`select max(deposit_index) as max from partner`)).rows[0].max).toBe(4);

  const before = await walletsOf(second);
  const changed = await orm!.em.fork().transactional((em) => rederiveDevelopmentDepositAddresses(em, TEST_DEPOSIT_KEYS));
  expect(changed).toBe(3 * CRYPTO_CURRENCIES.length);
  const after = await walletsOf(second);
  expect(after).toEqual(depositAddresses(TEST_DEPOSIT_KEYS, 1, () => 'mainnet'));
  expect(after.eth).not.toBe(before.eth);
  expect(await walletsOf(created.id)).toEqual(depositAddresses(TEST_DEPOSIT_KEYS, 3, () => 'mainnet'));
  expect(await orm!.em.fork().transactional((em) => rederiveDevelopmentDepositAddresses(em, TEST_DEPOSIT_KEYS))).toBe(0);
});
