import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type pg from 'pg';
import type { HDKey } from '@scure/bip32';
import { DEPOSIT_KEY_FAMILIES, accountKeysOf, depositAddress, parseAccountPublicKey } from '../../core/deposit-addresses';
import type { DepositKeyFamily } from '../../core/deposit-addresses';
import { Partner } from '../../db/entities/partner.entity';
import { findDepositAddressOwners } from '../../db/queries/deposit-address.queries';
import { DEPOSIT_XPUB_VARIABLES } from '../../main/deposit-keys';
import { createTestPartner } from '../support/fixtures';
import { runOpsCli } from '../support/ops-cli';
import { testStack } from '../support/stack';
import { TEST_DEPOSIT_XPUBS } from '../support/test-config';
import { useTestApi } from '../support/use-test-api';
import { endPool, openPool } from '../../db/pool';

const ctx = useTestApi();

/** What the API side holds: the four extended public keys, nothing that spends. */
const PUBLIC_KEYS = accountKeysOf(
  Object.fromEntries(
    DEPOSIT_KEY_FAMILIES.map((family) => {
      const key = parseAccountPublicKey(family, TEST_DEPOSIT_XPUBS[DEPOSIT_XPUB_VARIABLES[family]]!);
      if (typeof key === 'string') throw new Error(key);
      return [family, key];
    }),
  ) as Record<DepositKeyFamily, HDKey>,
);

type Wallets = Record<string, string>;

/** The wallet of each crypto balance, as a partner reads it. */
async function walletsOf(apiKey: string): Promise<Wallets> {
  const response = await ctx.api.request('GET', '/v1/partner/balances', { apiKey });
  expect(response.status).toBe(200);
  const balances = response.json.cryptoBalances as Array<{ name: string; wallet: string }>;
  return Object.fromEntries(balances.map(({ name, wallet }) => [name, wallet]));
}

async function depositIndexOf(partnerId: string): Promise<number> {
  return (await ctx.orm.em.fork().findOneOrFail(Partner, { id: partnerId })).depositIndex;
}

/** The addresses the extended public keys derive at an index (network_config ships mainnets). */
function derivedAt(index: number): Wallets {
  const address = (family: DepositKeyFamily) => depositAddress(PUBLIC_KEYS, family, index, 'mainnet');
  const evm = address('evm');
  return { btc: address('btc'), doge: address('doge'), eth: evm, ltc: address('ltc'), pol: evm, usdc: evm };
}

describe('deposit addresses', () => {
  let pool: pg.Pool;
  beforeAll(() => {
    pool = openPool({ connectionString: testStack().databaseUrl, max: 2 });
  });
  afterAll(() => endPool(pool));

  it('are derived per partner: eth, usdc and pol one address, two partners distinct, each what the extended public keys give', async () => {
    const [first, second] = [await createTestPartner(ctx.orm), await createTestPartner(ctx.orm)];
    const [firstIndex, secondIndex] = [await depositIndexOf(first.partnerId), await depositIndexOf(second.partnerId)];
    expect(secondIndex).toBeGreaterThan(firstIndex);
    const [firstWallets, secondWallets] = [await walletsOf(first.apiKey), await walletsOf(second.apiKey)];
    expect(firstWallets).toEqual(derivedAt(firstIndex));
    expect(secondWallets).toEqual(derivedAt(secondIndex));
    expect(firstWallets.usdc).toBe(firstWallets.eth);
    expect(firstWallets.pol).toBe(firstWallets.eth);
    for (const currency of ['eth', 'btc', 'ltc', 'doge']) expect(secondWallets[currency]).not.toBe(firstWallets[currency]);
    expect(firstWallets.btc).toMatch(/^bc1q/);
    expect(firstWallets.ltc).toMatch(/^ltc1q/);
    expect(firstWallets.doge).toMatch(/^D/);
  });

  it('are found by address, as the deposit watcher will ask: lower-case EVM hex included, strangers not', async () => {
    const [first, second] = [await createTestPartner(ctx.orm), await createTestPartner(ctx.orm)];
    const [firstWallets, secondWallets] = [await walletsOf(first.apiKey), await walletsOf(second.apiKey)];
    const owners = await findDepositAddressOwners(pool, 'evm', [
      firstWallets.eth!.toLowerCase(),
      secondWallets.eth!,
      '0x000000000000000000000000000000000000dEaD',
      'not an address',
    ]);
    expect(owners.sort((a, b) => a.depositIndex - b.depositIndex)).toEqual([
      { address: firstWallets.eth, partnerId: first.partnerId, depositIndex: await depositIndexOf(first.partnerId) },
      { address: secondWallets.eth, partnerId: second.partnerId, depositIndex: await depositIndexOf(second.partnerId) },
    ]);
    const doge = await findDepositAddressOwners(pool, 'doge', [secondWallets.doge!]);
    expect(doge).toEqual([expect.objectContaining({ partnerId: second.partnerId })]);
    expect(await findDepositAddressOwners(pool, 'btc', [firstWallets.ltc!])).toEqual([]);
  });

  it('belong to one account per currency: the database refuses giving one to a second partner', async () => {
    const [first, second] = [await createTestPartner(ctx.orm), await createTestPartner(ctx.orm)];
    await expect(
      pool.query(`update account set wallet_address = $1 where id = $2`, [first.accounts.usdc.walletAddress, second.accounts.usdc.id]),
    ).rejects.toMatchObject({ code: '23505', constraint: 'account_currency_wallet_address_uq' });
  });

  it('come from the extended public keys given to `ops partner create`', async () => {
    const created = await runOpsCli(['partner', 'create', '--name', 'Derived by the CLI']);
    expect(created.code).toBe(0);
    expect(await walletsOf(created.output.apiKey)).toEqual(derivedAt(await depositIndexOf(created.output.partnerId)));
  });

  it('are required by `ops partner create`: without the keys it refuses, naming them, and creates nothing', async () => {
    const emptyDataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'no-deposit-seed-'));
    try {
      const unset = Object.fromEntries(Object.values(DEPOSIT_XPUB_VARIABLES).map((variable) => [variable, '']));
      const refused = await runOpsCli(['partner', 'create', '--name', 'No keys, no partner'], { ...unset, DATA_DIR: emptyDataDir });
      expect(refused.code).toBe(1);
      expect(refused.output).toMatchObject({
        error: 'missing-deposit-keys',
        variables: ['BTC_DEPOSIT_XPUB', 'DOGE_DEPOSIT_XPUB', 'EVM_DEPOSIT_XPUB', 'LTC_DEPOSIT_XPUB'],
      });
      expect(refused.output.message).toContain('must be set to create partners');
      expect(await ctx.orm.em.fork().count(Partner, { name: 'No keys, no partner' })).toBe(0);
    } finally {
      fs.rmSync(emptyDataDir, { recursive: true, force: true });
    }
  });
});
