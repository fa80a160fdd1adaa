import { randomUUID } from 'node:crypto';
import type { EntityManager } from '@mikro-orm/postgresql';
import { DomainError } from '../../core/errors';
import { Decimal } from '../../core/money';
import { Account } from '../../db/entities/account.entity';
import { LedgerTransfer } from '../../db/entities/ledger-transfer.entity';
import { postTransfer, postTransferDirectly, reserveTransfer, voidTransfer } from '../../db/ledger/ledger';
import type { TransferInput } from '../../db/ledger/ledger';
import { findSystemAccount } from '../../db/ledger/accounts';
import { createTestPartner } from '../support/fixtures';
import type { TestPartner } from '../support/fixtures';
import { useTestApi } from '../support/use-test-api';
import { testStack } from '../support/stack';
import { endPool, openPool } from '../../db/pool';

const ctx = useTestApi({ api: false, poolMax: 40 });

async function account(id: string): Promise<Account> {
  const found = await ctx.orm.em.fork().findOne(Account, { id });
  if (!found) throw new Error(`no account ${id}`);
  return found;
}

async function withdrawalInput(partner: TestPartner, amount: string, transferId = randomUUID()): Promise<TransferInput> {
  const sink = await findSystemAccount(ctx.orm.em.fork(), 'CRYPTO_WITHDRAWALS', 'eth');
  return {
    transferId,
    kind: 'CRYPTO_WITHDRAWAL',
    postings: [
      { accountId: partner.accounts.eth.id, amount: `-${amount}` },
      { accountId: sink.id, amount },
    ],
  };
}

function inTransaction<T>(work: (em: EntityManager) => Promise<T>): Promise<T> {
  return ctx.orm.em.fork().transactional(work);
}

describe('ledger', () => {
  it('a reservation lowers the available balance at once and leaves the posted balance alone', async () => {
    const partner = await createTestPartner(ctx.orm, { deposits: { eth: '10' } });
    const input = await withdrawalInput(partner, '4');
    await inTransaction((em) => reserveTransfer(em, input, new Date()));
    const eth = await account(partner.accounts.eth.id);
    expect(new Decimal(eth.postedAmount).toFixed()).toBe('10');
    expect(new Decimal(eth.pendingOutAmount).toFixed()).toBe('4');
    // No operation explains this hold: release it, or the suite's final ledger check fails.
    await inTransaction((em) => voidTransfer(em, input.transferId, new Date()));
  });

  it('posting a reservation moves the posted balances; posting again changes nothing', async () => {
    const partner = await createTestPartner(ctx.orm, { deposits: { eth: '10' } });
    const input = await withdrawalInput(partner, '4');
    await inTransaction((em) => reserveTransfer(em, input, new Date()));
    await inTransaction((em) => postTransfer(em, input.transferId, new Date()));
    await inTransaction((em) => postTransfer(em, input.transferId, new Date()));
    const eth = await account(partner.accounts.eth.id);
    expect(new Decimal(eth.postedAmount).toFixed()).toBe('6');
    expect(new Decimal(eth.pendingOutAmount).toFixed()).toBe('0');
    const transfer = await ctx.orm.em.fork().findOneOrFail(LedgerTransfer, { id: input.transferId });
    expect(transfer.state).toBe('POSTED');
  });

  it('voiding a reservation releases the funds; voiding again changes nothing', async () => {
    const partner = await createTestPartner(ctx.orm, { deposits: { eth: '10' } });
    const input = await withdrawalInput(partner, '4');
    await inTransaction((em) => reserveTransfer(em, input, new Date()));
    await inTransaction((em) => voidTransfer(em, input.transferId, new Date()));
    await inTransaction((em) => voidTransfer(em, input.transferId, new Date()));
    const eth = await account(partner.accounts.eth.id);
    expect(new Decimal(eth.postedAmount).toFixed()).toBe('10');
    expect(new Decimal(eth.pendingOutAmount).toFixed()).toBe('0');
  });

  it('a voided transfer cannot be posted, nor a posted one voided', async () => {
    const partner = await createTestPartner(ctx.orm, { deposits: { eth: '10' } });
    const voided = await withdrawalInput(partner, '1');
    await inTransaction((em) => reserveTransfer(em, voided, new Date()));
    await inTransaction((em) => voidTransfer(em, voided.transferId, new Date()));
    await expect(inTransaction((em) => postTransfer(em, voided.transferId, new Date()))).rejects.toThrow(/invariant/);
    const posted = await withdrawalInput(partner, '1');
    await inTransaction((em) => reserveTransfer(em, posted, new Date()));
    await inTransaction((em) => postTransfer(em, posted.transferId, new Date()));
    await expect(inTransaction((em) => voidTransfer(em, posted.transferId, new Date()))).rejects.toThrow(/invariant/);
  });

  it('reserving the same transfer id twice reserves once', async () => {
    const partner = await createTestPartner(ctx.orm, { deposits: { eth: '10' } });
    const input = await withdrawalInput(partner, '3');
    await inTransaction((em) => reserveTransfer(em, input, new Date()));
    await inTransaction((em) => reserveTransfer(em, input, new Date()));
    const eth = await account(partner.accounts.eth.id);
    expect(new Decimal(eth.pendingOutAmount).toFixed()).toBe('3');
    await inTransaction((em) => voidTransfer(em, input.transferId, new Date()));
  });

  it('refuses a reservation larger than the available balance with insufficient-funds, and moves nothing', async () => {
    const partner = await createTestPartner(ctx.orm, { deposits: { eth: '1' } });
    const input = await withdrawalInput(partner, '1.000000000000000001');
    const attempt = inTransaction((em) => reserveTransfer(em, input, new Date()));
    await expect(attempt).rejects.toBeInstanceOf(DomainError);
    await expect(attempt).rejects.toMatchObject({ kind: 'insufficient-funds' });
    const eth = await account(partner.accounts.eth.id);
    expect(new Decimal(eth.pendingOutAmount).toFixed()).toBe('0');
    expect(await ctx.orm.em.fork().findOne(LedgerTransfer, { id: input.transferId })).toBeNull();
  });

  it('refuses a transfer that does not balance', async () => {
    const partner = await createTestPartner(ctx.orm, { deposits: { eth: '10' } });
    const input = await withdrawalInput(partner, '1');
    const unbalanced: TransferInput = { ...input, postings: [input.postings[0]!, { ...input.postings[1]!, amount: '0.9' }] };
    await expect(inTransaction((em) => postTransferDirectly(em, unbalanced, new Date()))).rejects.toThrow(/balances/);
  });

  it('the database itself refuses unbalanced postings and overdrafts, whatever the code does', async () => {
    const partner = await createTestPartner(ctx.orm, { deposits: { eth: '1' } });
    const connection = ctx.orm.em.fork().getConnection();
    const transferId = randomUUID();
    await expect(
      connection.transactional(async (trx) => {
        await connection.execute(
          `insert into ledger_transfer (id, kind, state, posted_at) values (?, 'DEPOSIT', 'POSTED', now())`,
          [transferId],
          'run',
          trx,
        );
        await connection.execute(
          `insert into ledger_posting (id, transfer_id, account_id, currency, amount) values (?, ?, ?, 'eth', 5)`,
          [randomUUID(), transferId, partner.accounts.eth.id],
          'run',
          trx,
        );
      }),
    ).rejects.toThrow(/does not balance/);
    await expect(connection.execute(`update account set pending_out_amount = 2 where id = ?`, [partner.accounts.eth.id])).rejects.toThrow(
      /check constraint/,
    );
  });

  it('keeps 18 decimals exactly', async () => {
    const partner = await createTestPartner(ctx.orm, { deposits: { eth: '123456789.123456789123456789' } });
    const input = await withdrawalInput(partner, '0.000000000000000001');
    await inTransaction((em) => reserveTransfer(em, input, new Date()));
    await inTransaction((em) => postTransfer(em, input.transferId, new Date()));
    const eth = await account(partner.accounts.eth.id);
    expect(new Decimal(eth.postedAmount).toFixed()).toBe('123456789.123456789123456788');
  });

  it('never overdraws under many parallel reservations, and the sums still hold', async () => {
    const partner = await createTestPartner(ctx.orm, { deposits: { eth: '10' } });
    const attempts = 60;
    const inputs = await Promise.all(Array.from({ length: attempts }, () => withdrawalInput(partner, '0.7')));
    const results = await Promise.allSettled(inputs.map((input) => inTransaction((em) => reserveTransfer(em, input, new Date()))));
    const succeeded = results.filter((result) => result.status === 'fulfilled').length;
    const refused = results.filter(
      (result) => result.status === 'rejected' && result.reason instanceof DomainError && result.reason.kind === 'insufficient-funds',
    ).length;
    // 10 / 0.7 = 14.28…: exactly 14 fit, every other attempt is refused for funds, none for anything else.
    expect(succeeded).toBe(14);
    expect(refused).toBe(attempts - 14);

    const eth = await account(partner.accounts.eth.id);
    expect(new Decimal(eth.pendingOutAmount).toFixed()).toBe('9.8');
    expect(new Decimal(eth.postedAmount).minus(eth.pendingOutAmount).toFixed()).toBe('0.2');
    const pending = await ctx.orm.em
      .fork()
      .getConnection()
      .execute<{ total: string; count: string }[]>(
        `select coalesce(-sum(p.amount), 0)::text as total, count(*)::text as count
         from ledger_posting p join ledger_transfer t on t.id = p.transfer_id
        where p.account_id = ? and t.state = 'PENDING'`,
        [partner.accounts.eth.id],
      );
    expect(new Decimal(pending[0]!.total).toFixed()).toBe('9.8');
    expect(pending[0]!.count).toBe('14');

    // Settle half and release the rest, concurrently: balances still equal their postings.
    const reserved = inputs.filter((_, index) => results[index]!.status === 'fulfilled');
    await Promise.all(
      reserved.map((input, index) =>
        inTransaction((em) => (index % 2 === 0 ? postTransfer : voidTransfer)(em, input.transferId, new Date())),
      ),
    );
    const settled = await account(partner.accounts.eth.id);
    expect(new Decimal(settled.postedAmount).toFixed()).toBe('5.1');
    expect(new Decimal(settled.pendingOutAmount).toFixed()).toBe('0');
  });

  it('names accounts by partner and system code, and caches no balance on system accounts: theirs is the sum of their postings', async () => {
    const partner = await createTestPartner(ctx.orm, { deposits: { eth: '10' } });
    const transferId = randomUUID();
    const postings = [
      { partnerId: partner.partnerId, currency: 'eth', amount: '-2.5' },
      { systemAccount: 'CRYPTO_WITHDRAWALS', currency: 'eth', amount: '2' },
      { systemAccount: 'FEE_INCOME', currency: 'eth', amount: '0.5' },
    ] as const;
    const before = await systemBalance('FEE_INCOME', 'eth');
    await inTransaction((em) => postTransferDirectly(em, { transferId, kind: 'CRYPTO_WITHDRAWAL', postings }, new Date()));
    const eth = await account(partner.accounts.eth.id);
    expect(new Decimal(eth.postedAmount).toFixed()).toBe('7.5');
    const fee = await findSystemAccount(ctx.orm.em.fork(), 'FEE_INCOME', 'eth');
    expect([fee.postedAmount, fee.pendingOutAmount, fee.pendingInAmount].map((amount) => new Decimal(amount).toFixed())).toEqual([
      '0',
      '0',
      '0',
    ]);
    expect(new Decimal(await systemBalance('FEE_INCOME', 'eth')).minus(before).toFixed()).toBe('0.5');
    // The database refuses a cached balance on a system account.
    await expect(ctx.orm.em.fork().getConnection().execute(`update account set posted_amount = 1 where id = ?`, [fee.id])).rejects.toThrow(
      /account_system_keeps_no_cached_balance/,
    );
  });

  it('through a pg pool, each call is its own transaction with the same guarantees', async () => {
    const partner = await createTestPartner(ctx.orm, { deposits: { eth: '1' } });
    const pool = openPool({ connectionString: testStack().databaseUrl, max: 2 });
    try {
      const input = await withdrawalInput(partner, '0.6');
      expect(await reserveTransfer(pool, input, new Date())).toBe('CREATED');
      expect(await reserveTransfer(pool, input, new Date())).toBe('EXISTS');
      const second = reserveTransfer(pool, await withdrawalInput(partner, '0.6'), new Date());
      await expect(second).rejects.toMatchObject({ kind: 'insufficient-funds' });
      expect(await postTransfer(pool, input.transferId, new Date())).toBe('CHANGED');
      expect(await postTransfer(pool, input.transferId, new Date())).toBe('UNCHANGED');
      await expect(voidTransfer(pool, input.transferId, new Date())).rejects.toThrow(
        /invariant violated: transfer .* is POSTED, cannot become VOIDED/,
      );
      const eth = await account(partner.accounts.eth.id);
      expect(new Decimal(eth.postedAmount).toFixed()).toBe('0.4');
      expect(new Decimal(eth.pendingOutAmount).toFixed()).toBe('0');
    } finally {
      await endPool(pool);
    }
  });

  it('refuses a posting on an account that does not exist, and a transfer touching one account twice', async () => {
    const partner = await createTestPartner(ctx.orm, { deposits: { eth: '10' } });
    const missing = inTransaction((em) =>
      postTransferDirectly(
        em,
        {
          transferId: randomUUID(),
          kind: 'DEPOSIT',
          postings: [
            { partnerId: randomUUID(), currency: 'eth', amount: '-1' },
            { accountId: partner.accounts.eth.id, amount: '1' },
          ],
        },
        new Date(),
      ),
    );
    await expect(missing).rejects.toThrow(/invariant violated: .* each on an account that exists/);
    const twice = inTransaction((em) =>
      postTransferDirectly(
        em,
        {
          transferId: randomUUID(),
          kind: 'DEPOSIT',
          postings: [
            { partnerId: partner.partnerId, currency: 'eth', amount: '-1' },
            { accountId: partner.accounts.eth.id, amount: '1' },
          ],
        },
        new Date(),
      ),
    );
    await expect(twice).rejects.toThrow(/touches each account once/);
    const tooFine = inTransaction((em) => reserveTransfer(em, { ...input19(partner) }, new Date()));
    await expect(tooFine).rejects.toThrow(/more than 18 decimals/);
    const eth = await account(partner.accounts.eth.id);
    expect(new Decimal(eth.pendingOutAmount).toFixed()).toBe('0');
  });
});

/** 0.0000000000000000005 has 19 decimals: numeric(38,18) would round it. */
function input19(partner: TestPartner): TransferInput {
  return {
    transferId: randomUUID(),
    kind: 'CRYPTO_WITHDRAWAL',
    postings: [
      { partnerId: partner.partnerId, currency: 'eth', amount: '-1.0000000000000000005' },
      { systemAccount: 'CRYPTO_WITHDRAWALS', currency: 'eth', amount: '1.0000000000000000005' },
    ],
  };
}

async function systemBalance(code: string, currency: string): Promise<string> {
  const rows = await ctx.orm.em
    .fork()
    .getConnection()
    .execute<{ posted: string }[]>(
      `select posted_amount::text as posted from system_account_balance where system_code = ? and currency = ?`,
      [code, currency],
    );
  return rows[0]!.posted;
}
