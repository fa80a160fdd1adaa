import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import type { MikroORM } from '@mikro-orm/postgresql';
import pg from 'pg';
import { lockReservationFacts } from '../../db/queries/reservation.queries';
import type { ReservationFacts } from '../../db/queries/reservation.queries';
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
