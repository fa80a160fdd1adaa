import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import type { MikroORM } from '@mikro-orm/postgresql';
import pg from 'pg';
import { DomainError } from '../../core/errors';
import { lockReservationFacts, reserveUnlessDecided } from '../../db/queries/reservation.queries';
import type { ReservationAttempt, ReservationFacts, ReservedTable } from '../../db/queries/reservation.queries';
import { createTestPartner, openTestOrm } from '../support/fixtures';
import { testStack } from '../support/stack';

/**
 * A reservation reads what it decides on in one statement that may wait for the partner's policy
 * lock (while the partner has a daily limit). Postgres takes that statement's snapshot before the
 * wait, so what an operator commits while it waits (the allowlist made required, the EUR account
 * deactivated) must still decide it, as it did when those were reads of their own after the lock.
 * Found by review of issue 22's change; these hold the lock, queue the operator's change, then the
 * reservation, and release in that order.
 */

let orm: MikroORM;
let pool: pg.Pool;
beforeAll(async () => {
  orm = await openTestOrm(2);
  pool = new pg.Pool({ connectionString: testStack().databaseUrl, max: 4 });
});
afterAll(async () => {
  await pool.end();
  await orm.close(true);
});

/** How many sessions wait for a row lock in a statement on the partner's policy (the queue the test builds). */
async function waitersOnPolicy(): Promise<number> {
  const { rows } = await pool.query<{ n: string }>(
    `select count(*)::text as n from pg_stat_activity
      where wait_event_type = 'Lock' and query ilike '%partner_policy%' and pid <> pg_backend_pid()`,
  );
  return Number(rows[0]!.n);
}

async function until(check: () => Promise<boolean>): Promise<void> {
  const deadline = Date.now() + 20_000;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error('the lock queue did not form');
    await sleep(20);
  }
}

/**
 * The policy row locked by another reservation; the operator's statement queued behind it; then
 * this reservation's read queued too; the lock released. Returns what the read saw.
 */
async function factsAfterOperatorChangeDuringWait(
  partnerId: string,
  operatorChange: string,
  withEurAccount: boolean,
): Promise<ReservationFacts> {
  const holder = await pool.connect();
  const operator = await pool.connect();
  try {
    await holder.query('begin');
    await holder.query('select 1 from partner_policy where partner_id = $1 for update', [partnerId]);
    const change = (async () => {
      await operator.query('begin');
      // Waits for the policy row (the operator's policy change), then changes what it must.
      await operator.query('update partner_policy set updated_at = now() where partner_id = $1', [partnerId]);
      await operator.query(operatorChange, [partnerId]);
      await operator.query('commit');
    })();
    await until(async () => (await waitersOnPolicy()) >= 1);
    const em = orm.em.fork();
    const read = em.transactional((tx) =>
      lockReservationFacts(tx, { table: 'crypto_withdrawal', operationId: randomUUID(), partnerId, withEurAccount }),
    );
    await until(async () => (await waitersOnPolicy()) >= 2);
    await holder.query('commit');
    await change;
    return await read;
  } finally {
    // A failed run must not leave its lock held on a pooled connection.
    await holder.query('rollback').catch(() => undefined);
    await operator.query('rollback').catch(() => undefined);
    holder.release();
    operator.release();
  }
}

describe("a reservation's facts read while it waited for the partner's policy lock", () => {
  it('see the allowlist an operator required during the wait', async () => {
    const partner = await createTestPartner(orm);
    await pool.query(`insert into partner_policy (partner_id, allowlist_required, daily_limit_eur) values ($1, false, 100000)`, [
      partner.partnerId,
    ]);
    const facts = await factsAfterOperatorChangeDuringWait(
      partner.partnerId,
      'update partner_policy set allowlist_required = true where partner_id = $1',
      false,
    );
    expect(facts).toMatchObject({ limitEur: '100000.00', allowlistRequired: true });
  });

  it('see the EUR account an operator deactivated during the wait', async () => {
    const partner = await createTestPartner(orm);
    await pool.query(`insert into partner_policy (partner_id, daily_limit_eur) values ($1, 100000)`, [partner.partnerId]);
    const facts = await factsAfterOperatorChangeDuringWait(
      partner.partnerId,
      `update account set fiat_status = 'WAITING_TO_BE_ACTIVATED' where partner_id = $1 and kind = 'PARTNER' and currency = 'eur'`,
      true,
    );
    expect(facts.eurAccount).toMatchObject({ fiatStatus: 'WAITING_TO_BE_ACTIVATED' });
  });

  it('without a limit nothing waits and the policy is read as it is', async () => {
    const partner = await createTestPartner(orm);
    await pool.query(`insert into partner_policy (partner_id, allowlist_required) values ($1, true)`, [partner.partnerId]);
    const facts = await orm.em
      .fork()
      .transactional((tx) =>
        lockReservationFacts(tx, { table: 'sepa_transfer', operationId: randomUUID(), partnerId: partner.partnerId, withEurAccount: true }),
      );
    expect(facts).toMatchObject({ existing: null, limitEur: null, allowlistRequired: true, eurAccount: { fiatStatus: 'ACTIVE' } });
  });
});

/**
 * The usual reservation in one statement (issue 22): the facts, and when they leave nothing to
 * decide, the hold and the record. When they do decide something, nothing is written and the
 * activity goes on step by step; the activities' own tests (test/e2e) cover those steps.
 */
describe('a reservation in one statement (reserveUnlessDecided)', () => {
  const NOW = new Date('2026-11-25T10:00:00.123Z');

  function withdrawal(partnerId: string, amount = '0.5') {
    const id = randomUUID();
    return {
      id,
      query: { table: 'crypto_withdrawal' as ReservedTable, operationId: id, partnerId, withEurAccount: false },
      plain: {
        transfer: {
          transferId: id,
          kind: 'CRYPTO_WITHDRAWAL' as const,
          postings: [
            { partnerId, currency: 'eth' as const, amount: `-${amount}` },
            { systemAccount: 'CRYPTO_WITHDRAWALS' as const, currency: 'eth' as const, amount },
          ],
        },
        record: {
          id,
          partner_id: partnerId,
          user_id: null,
          currency: 'eth',
          network: 'ethereum',
          amount,
          fee: '0',
          destination: '0x1111111111111111111111111111111111111111',
          memo: null,
          wallet_type: 'CUSTODIAL',
          receiver_type: 'NATURAL',
          beneficiary_name: 'Ada Lovelace',
          status: 'IN_PROGRESS',
          stage: 'RESERVED',
          amount_eur: '1234.567890123456789',
          created_at: NOW.toISOString(),
          updated_at: NOW.toISOString(),
        },
        now: NOW,
      },
    };
  }

  function sepaTransfer(partnerId: string) {
    const id = randomUUID();
    return {
      id,
      query: { table: 'sepa_transfer' as ReservedTable, operationId: id, partnerId, withEurAccount: true },
      plain: {
        transfer: {
          transferId: id,
          kind: 'SEPA_TRANSFER' as const,
          postings: [
            { partnerId, currency: 'eur' as const, amount: '-10.00' },
            { systemAccount: 'SEPA_CLEARING' as const, currency: 'eur' as const, amount: '10.00' },
          ],
        },
        record: {
          id,
          partner_id: partnerId,
          currency: 'eur',
          amount: '10.00',
          receiver_type: 'LEGAL',
          receiver_first_name: null,
          receiver_last_name: null,
          company_name: 'ACME',
          destination_iban: 'DE89370400440532013000',
          transfer_title: 'invoice 1',
          status: 'IN_PROGRESS',
          stage: 'RESERVED',
          created_at: NOW.toISOString(),
          updated_at: NOW.toISOString(),
        },
        now: NOW,
      },
    };
  }

  const attempt = (operation: ReturnType<typeof withdrawal> | ReturnType<typeof sepaTransfer>): Promise<ReservationAttempt> =>
    orm.em.fork().transactional((tx) => reserveUnlessDecided(tx, operation.query, operation.plain));

  async function written(table: ReservedTable, id: string) {
    const record = await pool.query(`select * from ${table} where id = $1`, [id]);
    const hold = await pool.query<{ state: string }>('select state from ledger_transfer where id = $1', [id]);
    return { record: record.rows[0], hold: hold.rows[0]?.state };
  }

  async function available(partnerId: string, currency: string): Promise<string> {
    const { rows } = await pool.query<{ available: string }>(
      `select (posted_amount - pending_out_amount)::text as available from account
        where kind = 'PARTNER' and partner_id = $1 and currency = $2`,
      [partnerId, currency],
    );
    return rows[0]!.available;
  }

  it('holds and stores the withdrawal as it was given, exactly; run again, it finds it and writes nothing', async () => {
    const partner = await createTestPartner(orm, { deposits: { eth: '2' } });
    const operation = withdrawal(partner.partnerId, '0.123456789012345678');
    await expect(attempt(operation)).resolves.toMatchObject({ reserved: true, existing: null });
    const { record, hold } = await written('crypto_withdrawal', operation.id);
    expect(hold).toBe('PENDING');
    expect(record).toMatchObject({
      partner_id: partner.partnerId,
      user_id: null,
      amount: '0.123456789012345678',
      fee: '0.000000000000000000',
      amount_eur: '1234.567890123456789000',
      wallet_type: 'CUSTODIAL',
      status: 'IN_PROGRESS',
      stage: 'RESERVED',
      travel_rule: null,
      transaction_hash: null,
      failure_reason: null,
    });
    expect((record.created_at as Date).toISOString()).toBe(NOW.toISOString());
    expect(await available(partner.partnerId, 'eth')).toBe('1.876543210987654322');

    await expect(attempt(operation)).resolves.toMatchObject({
      reserved: false,
      existing: { status: 'IN_PROGRESS', stage: 'RESERVED' },
    });
    expect(await available(partner.partnerId, 'eth')).toBe('1.876543210987654322');
  });

  it.each([
    ['a daily limit', `insert into partner_policy (partner_id, daily_limit_eur) values ($1, 100000)`, { limitEur: '100000.00' }],
    [
      'a required address book',
      `insert into partner_policy (partner_id, allowlist_required) values ($1, true)`,
      { allowlistRequired: true },
    ],
  ])('writes nothing when the partner has %s, and answers the facts', async (_name, policy, facts) => {
    const partner = await createTestPartner(orm, { deposits: { eth: '2' } });
    await pool.query(policy, [partner.partnerId]);
    const operation = withdrawal(partner.partnerId);
    await expect(attempt(operation)).resolves.toMatchObject({ reserved: false, existing: null, ...facts });
    expect(await written('crypto_withdrawal', operation.id)).toEqual({ record: undefined, hold: undefined });
    expect(await available(partner.partnerId, 'eth')).toBe('2.000000000000000000');
  });

  it('refuses short funds as the ledger does, and writes nothing', async () => {
    const partner = await createTestPartner(orm, { deposits: { eth: '0.1' } });
    const operation = withdrawal(partner.partnerId, '0.5');
    const refusal = await attempt(operation).catch((error: unknown) => error);
    expect(refusal).toBeInstanceOf(DomainError);
    expect(refusal).toMatchObject({ kind: 'insufficient-funds', detail: 'not enough eth available' });
    expect(await written('crypto_withdrawal', operation.id)).toEqual({ record: undefined, hold: undefined });
  });

  it('holds and stores a SEPA transfer from an active EUR account; an inactive one decides, and nothing is written', async () => {
    const partner = await createTestPartner(orm, { deposits: { eur: '100' } });
    const first = sepaTransfer(partner.partnerId);
    await expect(attempt(first)).resolves.toMatchObject({ reserved: true, eurAccount: { fiatStatus: 'ACTIVE' } });
    expect(await written('sepa_transfer', first.id)).toMatchObject({
      hold: 'PENDING',
      record: { amount: '10.000000000000000000', company_name: 'ACME', receiver_first_name: null, stage: 'RESERVED' },
    });
    expect(await available(partner.partnerId, 'eur')).toBe('90.000000000000000000');

    await pool.query(`update account set fiat_status = 'WAITING_TO_BE_ACTIVATED' where partner_id = $1 and currency = 'eur'`, [
      partner.partnerId,
    ]);
    const second = sepaTransfer(partner.partnerId);
    await expect(attempt(second)).resolves.toMatchObject({ reserved: false, eurAccount: { fiatStatus: 'WAITING_TO_BE_ACTIVATED' } });
    expect(await written('sepa_transfer', second.id)).toEqual({ record: undefined, hold: undefined });
    expect(await available(partner.partnerId, 'eur')).toBe('90.000000000000000000');
  });
});
