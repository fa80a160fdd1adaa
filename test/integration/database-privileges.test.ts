import { randomUUID } from 'node:crypto';
import pg from 'pg';
import { Decimal } from '../../core/money';
import { assertAppDatabaseReady } from '../../db/database-readiness';
import { findSystemAccount } from '../../db/ledger/accounts';
import { postTransfer, reserveTransfer, voidTransfer } from '../../db/ledger/ledger';
import type { TransferInput } from '../../db/ledger/ledger';
import { createTestPartner } from '../support/fixtures';
import type { TestPartner } from '../support/fixtures';
import { testStack } from '../support/stack';
import { useTestApi } from '../support/use-test-api';

/**
 * The service's own role, payments_app, as the API, the worker and the CLI connect (the test
 * stack prepares the database as `npm run migrate` does): it moves money through the ledger, and
 * the database refuses it everything else, whatever code runs under it.
 */
const ctx = useTestApi({ api: false, poolMax: 4 });
let app: pg.Client;
let admin: pg.Client;

beforeAll(async () => {
  const { databaseUrl, databaseAdminUrl } = testStack();
  if (!databaseAdminUrl) throw new Error('this test needs the stack’s own embedded Postgres (its superuser)');
  app = new pg.Client({ connectionString: databaseUrl });
  admin = new pg.Client({ connectionString: databaseAdminUrl });
  await Promise.all([app.connect(), admin.connect()]);
});

afterAll(async () => {
  await Promise.all([app?.end(), admin?.end()]);
});

/** A partner with a posted deposit: a POSTED ledger transfer, its postings and a deposit row. */
async function partnerWithDeposit(): Promise<{ partner: TestPartner; depositId: string }> {
  const partner = await createTestPartner(ctx.orm, { deposits: { eth: '10' } });
  const deposit = await app.query<{ id: string }>('select id from deposit where partner_id = $1', [partner.partnerId]);
  return { partner, depositId: deposit.rows[0]!.id };
}

describe('payments_app, the role of the API, the worker and the CLI', () => {
  it('is who the service connects as: not a superuser, not the owner of the tables', async () => {
    const role = await app.query<{ name: string; superuser: boolean; owner: string }>(
      `select current_user as name, r.rolsuper as superuser, pg_get_userbyid(c.relowner) as owner
         from pg_roles r, pg_class c where r.rolname = current_user and c.oid = 'ledger_posting'::regclass`,
    );
    expect(role.rows[0]).toEqual({ name: 'payments_app', superuser: false, owner: 'payments_migrator' });
  });

  it('is, with the schema’s owner, the only role that may connect to the service’s database', async () => {
    const connect = await admin.query<{ role: string; may: boolean }>(
      `select role, has_database_privilege(role, current_database(), 'CONNECT') as may
         from unnest(array['public', 'payments_app', 'payments_migrator']) as role`,
    );
    expect(connect.rows).toEqual([
      { role: 'public', may: false },
      { role: 'payments_app', may: true },
      { role: 'payments_migrator', may: true },
    ]);
  });

  it.each([
    ['create a table', 'create table intruder (id int)', /permission denied for schema public/],
    ['create a function', 'create function intruder() returns int language sql as $$ select 1 $$', /permission denied for schema public/],
    ['add a column', 'alter table account add column intruder text', /must be owner of table account/],
    ['drop a constraint', 'alter table account drop constraint account_system_keeps_no_cached_balance', /must be owner of table account/],
    ['drop a table', 'drop table ledger_posting', /must be owner of table ledger_posting/],
    ['disable the ledger triggers', 'alter table ledger_posting disable trigger all', /must be owner of table ledger_posting/],
    [
      'disable the closed-transfer trigger',
      'alter table ledger_transfer disable trigger ledger_transfer_closed_is_final',
      /must be owner of table ledger_transfer/,
    ],
    [
      'replace a ledger function',
      'create or replace function ledger_complete(uuid, text, timestamptz) returns text language sql as $$ select null::text $$',
      /permission denied for schema public/,
    ],
    [
      'skip every trigger of its session',
      'set session_replication_role = replica',
      /permission denied to set parameter "session_replication_role"/,
    ],
    ['truncate ledger postings', 'truncate ledger_posting', /permission denied for table ledger_posting/],
    ['truncate ledger transfers', 'truncate ledger_transfer cascade', /permission denied for table ledger_transfer/],
    ['truncate accounts', 'truncate account cascade', /permission denied for table account/],
    ['truncate the audit trail', 'truncate operator_action', /permission denied for table operator_action/],
    ['rewrite a posting', 'update ledger_posting set amount = amount * 2', /permission denied for table ledger_posting/],
    ['delete a posting', 'delete from ledger_posting', /permission denied for table ledger_posting/],
    ['delete a transfer', 'delete from ledger_transfer', /permission denied for table ledger_transfer/],
    ['rewrite a deposit', 'update deposit set amount = amount * 2', /permission denied for table deposit/],
    ['delete a deposit', 'delete from deposit', /permission denied for table deposit/],
    ['rewrite an audit row', `update operator_action set reason = 'nothing happened'`, /permission denied for table operator_action/],
    ['delete an audit row', 'delete from operator_action', /permission denied for table operator_action/],
    ['delete an account', 'delete from account', /permission denied for table account/],
    [
      'rewrite an accepted request',
      `update accepted_operation set request = request || '{"fee":"0"}'`,
      /permission denied for table accepted_operation/,
    ],
    ['hide a refused workflow', `update refused_operation set reason = 'nothing'`, /permission denied for table refused_operation/],
    ['erase a withdrawal-address book entry', 'delete from withdrawal_address', /permission denied for table withdrawal_address/],
    ['forget what was swept', 'delete from evm_sweep', /permission denied for table evm_sweep/],
    ['forget which chain a network is on', 'delete from evm_chain_identity', /permission denied for table evm_chain_identity/],
    [
      'record a migration',
      `insert into mikro_orm_migrations (name) values ('Migration99990101000000_intruder')`,
      /permission denied for table mikro_orm_migrations/,
    ],
  ])('may not %s', async (_what, statement, refusal) => {
    await expect(app.query(statement)).rejects.toThrow(refusal);
  });

  it('may not change or delete a closed ledger transfer, and neither may the schema’s owner or a superuser', async () => {
    const { depositId } = await partnerWithDeposit();
    await expect(
      app.query(`update ledger_transfer set state = 'VOIDED', posted_at = null, voided_at = now() where id = $1`, [depositId]),
    ).rejects.toThrow(/ledger transfer .* is POSTED, and a closed transfer is never changed or deleted/);
    await expect(admin.query(`update ledger_transfer set created_at = created_at where id = $1`, [depositId])).rejects.toThrow(
      /a closed transfer is never changed or deleted/,
    );
    await expect(admin.query('delete from ledger_transfer where id = $1', [depositId])).rejects.toThrow(
      /a closed transfer is never changed or deleted/,
    );
    const state = await app.query<{ state: string }>('select state from ledger_transfer where id = $1', [depositId]);
    expect(state.rows[0]?.state).toBe('POSTED');
  });

  it('may only ever delete a withdrawal-address book entry, once: no earlier activeFrom, no other address, no undeleting', async () => {
    const { partner } = await partnerWithDeposit();
    const id = randomUUID();
    const address = '0x52908400098527886E0F7030069857D2E4169EE7';
    await app.query(
      `insert into withdrawal_address (id, partner_id, currency, network, address, address_key, label, active_from, created_at)
       values ($1, $2, 'eth', 'ethereum', $3, lower($3), 'cold', now() + interval '1 day', now())`,
      [id, partner.partnerId, address],
    );
    for (const change of [`active_from = created_at`, `address = '0x0'`, `label = 'other'`, `deleted_at = null`]) {
      await expect(app.query(`update withdrawal_address set ${change} where id = $1`, [id])).rejects.toThrow(
        /an entry is only ever deleted, once/,
      );
    }
    await app.query('update withdrawal_address set deleted_at = now() where id = $1', [id]);
    await expect(app.query('update withdrawal_address set deleted_at = null where id = $1', [id])).rejects.toThrow(
      /an entry is only ever deleted, once/,
    );
    await expect(admin.query('delete from withdrawal_address where id = $1', [id])).rejects.toThrow(/an entry is only ever deleted, once/);
  });

  it('moves money as before: a reservation, a post and a void through the ledger functions', async () => {
    const { partner } = await partnerWithDeposit();
    const sink = await findSystemAccount(ctx.orm.em.fork(), 'CRYPTO_WITHDRAWALS', 'eth');
    const withdrawal = (amount: string): TransferInput => ({
      transferId: randomUUID(),
      kind: 'CRYPTO_WITHDRAWAL',
      postings: [
        { accountId: partner.accounts.eth.id, amount: `-${amount}` },
        { accountId: sink.id, amount },
      ],
    });
    const posted = withdrawal('3');
    const voided = withdrawal('2');
    const now = new Date();
    await ctx.orm.em.fork().transactional(async (em) => {
      const user = await em.getConnection().execute<Array<{ name: string }>>('select current_user as name');
      expect(user[0]?.name).toBe('payments_app');
      await reserveTransfer(em, posted, now);
      await reserveTransfer(em, voided, now);
    });
    await ctx.orm.em.fork().transactional((em) => postTransfer(em, posted.transferId, now));
    await ctx.orm.em.fork().transactional((em) => voidTransfer(em, voided.transferId, now));
    const balance = await app.query<{ posted_amount: string; pending_out_amount: string }>(
      'select posted_amount, pending_out_amount from account where id = $1',
      [partner.accounts.eth.id],
    );
    expect(new Decimal(balance.rows[0]!.posted_amount).toFixed()).toBe('7');
    expect(new Decimal(balance.rows[0]!.pending_out_amount).toFixed()).toBe('0');
    const states = await app.query<{ id: string; state: string }>('select id, state from ledger_transfer where id = any($1::uuid[])', [
      [posted.transferId, voided.transferId],
    ]);
    expect(Object.fromEntries(states.rows.map((row) => [row.id, row.state]))).toEqual({
      [posted.transferId]: 'POSTED',
      [voided.transferId]: 'VOIDED',
    });
  });

  it('gets DML on a table a later migration creates, narrowed by the restrictions named for it', async () => {
    // As payments_migrator would run a later migration, rolled back: no other test ever sees these tables.
    await admin.query('begin');
    try {
      await admin.query('set local role payments_migrator');
      await admin.query('create table later_table (id int primary key)');
      const privileges = async (table: string) =>
        (
          await admin.query<{ privilege: string }>(
            `select privilege from unnest(array['SELECT', 'INSERT', 'UPDATE', 'DELETE', 'TRUNCATE']) as privilege
              where has_table_privilege('payments_app', $1, privilege)`,
            [table],
          )
        ).rows.map((row) => row.privilege);
      // Default privileges, before anything else runs.
      expect(await privileges('later_table')).toEqual(['SELECT', 'INSERT', 'UPDATE', 'DELETE']);
      await admin.query('select apply_payments_app_privileges()');
      expect(await privileges('later_table')).toEqual(['SELECT', 'INSERT', 'UPDATE', 'DELETE']);
      // A table the migrations created later (the audit's), named in the restrictions.
      expect(await privileges('operator_action_use')).toEqual(['SELECT', 'INSERT']);
      expect(await privileges('ledger_posting')).toEqual(['SELECT', 'INSERT']);
      expect(await privileges('ledger_transfer')).toEqual(['SELECT', 'INSERT', 'UPDATE']);
    } finally {
      await admin.query('rollback');
    }
  });
});

describe('the check the API, the worker and the CLI make at start', () => {
  it('passes as payments_app on the migrated schema', async () => {
    await expect(assertAppDatabaseReady(testStack().databaseUrl)).resolves.toBeUndefined();
  });

  it('refuses a superuser, naming the role the service connects as', async () => {
    await expect(assertAppDatabaseReady(testStack().databaseAdminUrl!)).rejects.toThrow(
      /DATABASE_URL connects as postgres, which is a superuser: the service connects as payments_app/,
    );
  });

  it('refuses a schema behind the code, saying to migrate first', async () => {
    const database = `unmigrated_${randomUUID().replace(/-/g, '')}`;
    await admin.query(`create database ${database}`);
    try {
      const url = new URL(testStack().databaseAdminUrl!);
      url.pathname = `/${database}`;
      await expect(assertAppDatabaseReady(url.toString())).rejects.toThrow(
        /the database schema is not migrated: \d+ migration\(s\) pending, up to Migration\d+_\w+; run `npm run migrate` first/,
      );
    } finally {
      await admin.query(`drop database ${database}`);
    }
  });

  it('refuses a role that cannot log in, saying what creates it', async () => {
    const url = new URL(testStack().databaseUrl);
    url.password = 'not-the-password';
    await expect(assertAppDatabaseReady(url.toString())).rejects.toThrow(/cannot log in to the database as payments_app .*npm run migrate/);
  });
});
