import type { MikroORM } from '@mikro-orm/postgresql';
import { openOrm } from '../../db/orm';
import { testStack } from '../support/stack';

/**
 * What the migrations create and the entities cannot declare, so MikroORM would drop it:
 * foreign keys (the entities keep plain id columns, and ours are deferrable), CHECK constraints
 * beyond the `in (…)` lists the enum properties stand for, unique constraints, and indexes
 * (plain, unique and partial). Only the dropping of such a constraint or index is ignored; every
 * statement about a table or a column still fails the test.
 */
const DROPS_OF_WHAT_ONLY_MIGRATIONS_DECLARE = [/^alter table "\w+" drop constraint "?\w+"?;$/, /^drop index "\w+";$/];

/**
 * Tables that adapters (and the API, which has no ORM) read and write with plain SQL
 * (db/queries/), so no entity declares them: MikroORM would drop them. Only their dropping is ignored.
 */
const TABLES_WITHOUT_ENTITIES = [
  'simulated_bank_payment',
  'simulated_bank_notification',
  'bank_notification_cursor',
  'evm_wallet_nonce',
  'evm_transaction',
  'evm_transaction_attempt',
  'accepted_operation',
  'refused_operation',
  'withdrawal_address',
  'crypto_deposit',
  'evm_deposit_cursor',
  'evm_scanned_block',
  'evm_sweep',
  'evm_chain_identity',
  'utxo_wallet',
  'utxo_wallet_script',
  'utxo_coin',
  'utxo_transaction',
  'utxo_transaction_attempt',
  'utxo_scanned_block',
  'crypto_withdrawal_network_fee',
  'utxo_sweep',
  'bank_document_exception',
  'operator_transaction',
];
const DROPS_OF_TABLES_WITHOUT_ENTITIES = TABLES_WITHOUT_ENTITIES.map((table) => `drop table if exists "${table}" cascade;`);

/**
 * The schema is owned by the hand-written migrations (db/migrations); the entities must describe
 * the same columns. MikroORM's diff between the entity metadata and the migrated database is what
 * it would run to make the database match the entities: it must be empty, so an entity column
 * without a migration, or with another type, nullability, precision or default, fails here.
 */
describe('entities and migrations', () => {
  let orm: MikroORM;

  beforeAll(async () => {
    // As a role that sees the whole schema: information_schema shows CHECK constraints only to
    // their table's owner, so payments_app would find every enum check missing.
    orm = await openOrm(testStack().databaseAdminUrl ?? testStack().databaseUrl, 2);
  });

  afterAll(async () => {
    await orm.close(true);
  });

  it('MikroORM finds nothing to change between the entities and the migrated schema', async () => {
    // safe: false and dropTables: true so that dropped columns and tables show up too.
    const sql = await orm.getSchemaGenerator().getUpdateSchemaSQL({ wrap: false, safe: false, dropTables: true });
    const statements = sql
      .split('\n')
      .map((line) => line.trim())
      .filter((line) => line.length > 0 && !line.startsWith('--'))
      .filter((line) => !DROPS_OF_WHAT_ONLY_MIGRATIONS_DECLARE.some((pattern) => pattern.test(line)))
      .filter((line) => !DROPS_OF_TABLES_WITHOUT_ENTITIES.includes(line));
    expect(statements).toEqual([]);
  });
});
