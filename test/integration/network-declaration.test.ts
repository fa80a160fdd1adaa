import type pg from 'pg';
import { CHAIN_MODES } from '../../core/chain-parameters';
import { CRYPTO_CURRENCIES, CURRENCIES } from '../../core/currencies';
import { ASSETS, EVM_CURRENCIES, EVM_NETWORKS, NETWORKS, NETWORK_DECLARATIONS, UTXO_NETWORKS } from '../../core/networks';
import type { AssetDefaults, Network } from '../../core/networks';
import { endPool, openPool } from '../../db/pool';
import { testStack } from '../support/stack';

/**
 * The database's own lists of currencies and networks (CHECK constraints, system accounts, the seeded network_config
 * rows) are what core/networks.ts declares: a network added there and not in the baseline migration fails here. The
 * chains a network_config row may name are core/chain-parameters.ts's.
 */

let pool: pg.Pool;
beforeAll(() => {
  pool = openPool({ connectionString: testStack().databaseUrl, max: 2 });
});
afterAll(async () => {
  await endPool(pool);
});

const sorted = (values: Iterable<string>) => [...values].sort();

/** The quoted literals of a table's CHECK constraints that name `column`, one list per constraint. */
async function checkLists(table: string, column: string): Promise<string[][]> {
  const { rows } = await pool.query<{ definition: string }>(
    `select pg_get_constraintdef(c.oid) as definition from pg_constraint c
      where c.conrelid = $1::regclass and c.contype = 'c' and pg_get_constraintdef(c.oid) ~ ('\\m' || $2 || '\\M')`,
    [table, column],
  );
  return rows
    .map(({ definition }) => [...definition.matchAll(/'([a-z0-9]+)'::text/g)].map((match) => match[1]!))
    .filter((literals) => literals.length > 0)
    .map(sorted);
}

describe('the database and core/networks.ts', () => {
  it('check the same currencies and networks', async () => {
    expect(await checkLists('account', 'currency')).toEqual([sorted(CURRENCIES)]);
    expect(await checkLists('manual_credit', 'currency')).toEqual([sorted(CURRENCIES)]);
    expect(await checkLists('withdrawal_address', 'currency')).toEqual([sorted(CRYPTO_CURRENCIES)]);
    expect(await checkLists('withdrawal_address', 'network')).toEqual([sorted(NETWORKS)]);
    expect(await checkLists('network_config', 'chain')).toEqual([sorted(CHAIN_MODES)]);
    for (const table of ['crypto_deposit', 'evm_chain_identity']) {
      const lists = await checkLists(table, 'network');
      expect(lists).toContainEqual(sorted(NETWORKS));
      // The families' own rules (hash and address formats, chain ids) name the EVM networks.
      for (const list of lists) expect([sorted(NETWORKS), sorted(EVM_NETWORKS)]).toContainEqual(list);
    }
    expect(await checkLists('crypto_deposit', 'currency')).toEqual([sorted(CRYPTO_CURRENCIES)]);
    for (const table of ['utxo_wallet', 'utxo_transaction', 'utxo_scanned_block']) {
      expect(await checkLists(table, 'network')).toEqual([sorted(UTXO_NETWORKS)]);
    }
    for (const table of ['evm_transaction', 'evm_sweep', 'evm_deposit_cursor', 'evm_scanned_block']) {
      const lists = await checkLists(table, 'network');
      expect(lists.length).toBeGreaterThan(0);
      for (const list of lists) expect(list).toEqual(sorted(EVM_NETWORKS));
    }
    for (const table of ['evm_transaction', 'evm_sweep']) {
      const lists = await checkLists(table, 'currency');
      expect(lists.length).toBeGreaterThan(0);
      for (const list of lists) expect(list).toEqual(sorted(EVM_CURRENCIES));
    }
  });

  it('hold the house accounts of every currency', async () => {
    const { rows } = await pool.query<{ system_code: string; currencies: string[] }>(
      `select system_code, array_agg(currency::text order by currency) as currencies from account where kind = 'SYSTEM' group by system_code`,
    );
    for (const code of ['EXTERNAL_DEPOSITS', 'FEE_INCOME', 'EXCHANGE_DESK', 'CRYPTO_WITHDRAWALS', 'SEPA_CLEARING']) {
      expect(rows.find((row) => row.system_code === code)?.currencies).toEqual(sorted(CURRENCIES));
    }
    // What the house pays the networks is paid in their coins.
    const coins = [...new Set(NETWORKS.map((network) => NETWORK_DECLARATIONS[network].nativeCurrency))];
    expect(rows.find((row) => row.system_code === 'NETWORK_FEES')?.currencies).toEqual(sorted(coins));
  });

  it('seed one network_config row per declared pair, with its defaults', async () => {
    const { rows } = await pool.query<{ currency: string; network: Network; fee: string; min_withdrawal: string; min_deposit: string }>(
      `select currency, network, trim_scale(fee_withdrawal)::text as fee, trim_scale(min_withdrawal)::text as min_withdrawal,
              trim_scale(min_deposit)::text as min_deposit from network_config order by network, currency`,
    );
    const declared = ASSETS.map(({ currency, network }) => {
      const defaults = (NETWORK_DECLARATIONS[network].assets as Partial<Record<string, AssetDefaults>>)[currency]!;
      return {
        currency,
        network,
        fee: defaults.withdrawalFee,
        min_withdrawal: defaults.minimumWithdrawal,
        min_deposit: defaults.minimumDeposit,
      };
    });
    expect(rows).toEqual(declared.sort((a, b) => a.network.localeCompare(b.network) || a.currency.localeCompare(b.currency)));
  });

  it('is what the TypeScript lists derive from: every crypto currency moves on a declared network', () => {
    expect(sorted(new Set(ASSETS.map((pair) => pair.currency)))).toEqual(sorted(CRYPTO_CURRENCIES));
  });
});
