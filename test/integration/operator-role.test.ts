import { randomUUID } from 'node:crypto';
import pg from 'pg';
import { ledgerPostings } from '../../db/ledger/ledger';
import { createTestPartner } from '../support/fixtures';
import type { TestPartner } from '../support/fixtures';
import { testStack } from '../support/stack';
import { useTestApi } from '../support/use-test-api';

/**
 * payments_ops, the operator CLI's role (the test stack makes it as `npm run migrate` with DATABASE_OPS_URL does): it
 * may not run the ledger's functions nor write a ledger table or an account's balance; its ledger calls reach the
 * operator schema's functions, which take only an operator's kinds, and at commit each of its ledger changes needs the
 * audit row of a command that may make it. Before it, the CLI connected as payments_app and could mint with one call.
 */
const ctx = useTestApi({ api: false, poolMax: 4 });
let ops: pg.Client;
let app: pg.Client;

beforeAll(async () => {
  const { opsDatabaseUrl, databaseUrl } = testStack();
  ops = new pg.Client({ connectionString: opsDatabaseUrl });
  app = new pg.Client({ connectionString: databaseUrl });
  await Promise.all([ops.connect(), app.connect()]);
});

afterAll(async () => {
  await Promise.all([ops?.end(), app?.end()]);
});

/** 10 eur from outside to the partner: what a manual deposit posts. */
function depositPostings(partner: TestPartner): string {
  return ledgerPostings({
    transferId: randomUUID(),
    kind: 'DEPOSIT',
    postings: [
      { systemAccount: 'EXTERNAL_DEPOSITS', currency: 'eur', amount: '-10' },
      { accountId: partner.accounts.eur.id, amount: '10' },
    ],
  });
}

async function postedEur(partner: TestPartner): Promise<string> {
  const result = await app.query<{ posted: string }>('select trim_scale(posted_amount)::text as posted from account where id = $1', [
    partner.accounts.eur.id,
  ]);
  return result.rows[0]!.posted;
}

/** In one transaction, as the CLI runs a command: `statements`, then commit (rolled back when any fails). */
async function asOperator(statements: (client: pg.Client) => Promise<unknown>): Promise<void> {
  await ops.query('begin');
  try {
    await statements(ops);
    await ops.query('commit');
  } catch (error) {
    await ops.query('rollback').catch(() => undefined);
    throw error;
  }
}

/** The audit row a command writes, naming what it changed (a deposit's id is its transfer's). */
const auditRow = (client: pg.Client, action: string, partner: TestPartner, subjectId: string = randomUUID()) =>
  client.query(
    `insert into operator_action (id, action, actor, os_user, subject_type, subject_id, partner_id)
     values ($1, $2, 'alice', 'alice', 'deposit', $3, $4)`,
    [randomUUID(), action, subjectId, partner.partnerId],
  );

describe('payments_ops, the operator CLI’s role', () => {
  it('may not run public’s ledger functions, nor write a ledger table or an account’s balance', async () => {
    const partner = await createTestPartner(ctx.orm);
    const id = randomUUID();
    for (const [statement, values] of [
      [`select public.ledger_open($1, 'DEPOSIT', 'POSTED', $2::jsonb, now())`, [id, depositPostings(partner)]],
      [`select public.ledger_complete($1, 'POSTED', now())`, [id]],
      [`select public.ledger_tombstone($1, 'EXCHANGE')`, [id]],
      [`insert into ledger_transfer (id, kind, state, created_at) values ($1, 'DEPOSIT', 'POSTED', now())`, [id]],
      [`update account set posted_amount = posted_amount + 1000 where id = $1`, [partner.accounts.eur.id]],
      [`update account set wallet_address = 'x' where id = $1`, [partner.accounts.eth.id]],
    ] as const) {
      await expect(ops.query(statement, [...values])).rejects.toMatchObject({ code: '42501' });
    }
    expect(await postedEur(partner)).toBe('0');
  });

  it('posts a deposit only with the audit row of a command that may, in the same transaction', async () => {
    const partner = await createTestPartner(ctx.orm);
    let transferId = randomUUID();
    const open = (client: pg.Client) => {
      transferId = randomUUID();
      return client.query(`select ledger_open($1, 'DEPOSIT', 'POSTED', $2::jsonb, now())`, [transferId, depositPostings(partner)]);
    };
    // No audit row: refused at commit, nothing posted.
    await expect(asOperator(open)).rejects.toMatchObject({ code: 'PP040' });
    // An audit row of a command that moves no money does not do either.
    await expect(
      asOperator(async (client) => {
        await open(client);
        await auditRow(client, 'webhook-set', partner, transferId);
      }),
    ).rejects.toMatchObject({ code: 'PP040' });
    // An approval with no approved credit behind it neither.
    await expect(
      asOperator(async (client) => {
        await open(client);
        await auditRow(client, 'deposit-approve', partner, transferId);
      }),
    ).rejects.toMatchObject({ code: 'PP040' });
    // A deposit's audit row of another transfer neither.
    await expect(
      asOperator(async (client) => {
        await open(client);
        await auditRow(client, 'deposit', partner);
      }),
    ).rejects.toMatchObject({ code: 'PP040' });
    expect(await postedEur(partner)).toBe('0');
    await asOperator(async (client) => {
      await open(client);
      await auditRow(client, 'deposit', partner, transferId);
    });
    expect(await postedEur(partner)).toBe('10');
  });

  it('takes only an operator’s kinds: no exchange, no hold, nothing but a withdrawal’s or SEPA transfer’s hold completed', async () => {
    const partner = await createTestPartner(ctx.orm);
    await expect(
      ops.query(`select ledger_open($1, 'EXCHANGE', 'POSTED', $2::jsonb, now())`, [randomUUID(), depositPostings(partner)]),
    ).rejects.toMatchObject({ code: 'PP040' });
    await expect(
      ops.query(`select ledger_open($1, 'DEPOSIT', 'PENDING', $2::jsonb, now())`, [randomUUID(), depositPostings(partner)]),
    ).rejects.toMatchObject({ code: 'PP040' });
    const deposit = await app.query<{ id: string }>(`select id from ledger_transfer where kind = 'DEPOSIT' limit 1`);
    await expect(ops.query(`select ledger_complete($1, 'VOIDED', now())`, [deposit.rows[0]!.id])).rejects.toMatchObject({
      code: 'PP040',
    });
  });

  it('changes nothing else unrecorded either: any write of the role needs its command’s audit row', async () => {
    const partner = await createTestPartner(ctx.orm);
    const deactivate = (client: pg.Client) =>
      client.query(`update account set fiat_status = 'WAITING_TO_BE_ACTIVATED' where id = $1`, [partner.accounts.eur.id]);
    await expect(asOperator(deactivate)).rejects.toMatchObject({ code: 'PP040' });
    await asOperator(async (client) => {
      await deactivate(client);
      await auditRow(client, 'account-set-status', partner);
    });
    const status = await app.query<{ status: string }>('select fiat_status as status from account where id = $1', [
      partner.accounts.eur.id,
    ]);
    expect(status.rows[0]!.status).toBe('WAITING_TO_BE_ACTIVATED');
    // Partners are created, then changed only through their policy.
    await expect(ops.query(`update partner set name = 'renamed' where id = $1`, [partner.partnerId])).rejects.toMatchObject({
      code: '42501',
    });
  });

  it('moves money only as its commands do: a deposit from outside to one partner, a credit requested PENDING', async () => {
    const [from, to] = [await createTestPartner(ctx.orm, { deposits: { eur: '50' } }), await createTestPartner(ctx.orm)];
    const betweenPartners = ledgerPostings({
      transferId: randomUUID(),
      kind: 'DEPOSIT',
      postings: [
        { accountId: from.accounts.eur.id, amount: '-10' },
        { accountId: to.accounts.eur.id, amount: '10' },
      ],
    });
    await expect(
      ops.query(`select ledger_open($1, 'DEPOSIT', 'POSTED', $2::jsonb, now())`, [randomUUID(), betweenPartners]),
    ).rejects.toMatchObject({ code: 'PP040' });
    await expect(
      ops.query(
        `insert into manual_credit (id, partner_id, currency, amount, amount_eur, type, requested_by, requested_os_user, requested_at,
                                    status, approved_by, approved_os_user, approved_at, transaction_id)
         values ($1, $2, 'eur', 10, 10, 'sepaDeposit', 'alice', 'alice', now(), 'APPROVED', 'bob', 'bob', now(), $1)`,
        [randomUUID(), to.partnerId],
      ),
    ).rejects.toMatchObject({ code: 'PP021' });
  });

  it('writes only these tables, and of some only these columns: a new table fails this until it is decided whether the role may write it', async () => {
    const rows = await app.query<{ name: string; writes: string; columns: string | null }>(
      `select c.relname as name,
              concat_ws(',', case when has_table_privilege('payments_ops', c.oid, 'INSERT') then 'insert' end,
                             case when has_table_privilege('payments_ops', c.oid, 'UPDATE') then 'update' end,
                             case when has_table_privilege('payments_ops', c.oid, 'DELETE') then 'delete' end) as writes,
              (select string_agg(a.attname, ',' order by a.attname) from pg_attribute a
                where a.attrelid = c.oid and a.attnum > 0 and not a.attisdropped
                  and not has_table_privilege('payments_ops', c.oid, 'UPDATE')
                  and has_column_privilege('payments_ops', c.oid, a.attnum, 'UPDATE')) as columns
         from pg_class c
        where c.relnamespace = 'public'::regnamespace and c.relkind in ('r', 'p')
        order by 1`,
    );
    const writable = Object.fromEntries(
      rows.rows
        .filter((row) => row.writes !== '' || row.columns !== null)
        .map((row) => [row.name, [row.writes, row.columns].filter((part) => part).join(' ')]),
    );
    expect(writable).toEqual({
      account: 'insert fiat_status',
      api_key: 'insert,update',
      crypto_withdrawal: 'failure_reason,stage,status,updated_at',
      crypto_withdrawal_network_fee: 'insert',
      deposit: 'insert',
      evm_chain_identity: 'insert,update',
      evm_wallet_nonce: 'next_nonce',
      incoming_sepa_credit: 'deposit_id,partner_id,resolved_at,return_bank_reference,return_id,return_requested_at,status',
      manual_credit: 'insert,update',
      operator_action: 'insert',
      partner: 'insert',
      partner_policy: 'insert,update',
      partner_user: 'insert,update',
      sepa_transfer: 'failure_reason,stage,status,updated_at',
      simulated_bank_notification: 'insert',
      simulated_bank_payment: 'insert,update',
      webhook_endpoint: 'insert,update,delete',
      webhook_event: 'insert,update',
    });
  });

  it('opens an account only empty', async () => {
    const partner = await createTestPartner(ctx.orm);
    await expect(
      ops.query(`insert into account (id, kind, partner_id, currency, posted_amount) values ($1, 'PARTNER', $2, 'eur', 1000)`, [
        randomUUID(),
        partner.partnerId,
      ]),
    ).rejects.toMatchObject({ code: 'PP040' });
  });

  it('leaves the service’s own role as it was: the worker posts without an audit row', async () => {
    const partner = await createTestPartner(ctx.orm);
    await app.query(`select ledger_open($1, 'DEPOSIT', 'POSTED', $2::jsonb, now())`, [randomUUID(), depositPostings(partner)]);
    expect(await postedEur(partner)).toBe('10');
  });
});
