import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import type { MikroORM } from '@mikro-orm/postgresql';
import type pg from 'pg';
import { cryptoWithdrawalContract, sepaTransferContract } from '../../contracts';
import { DomainError } from '../../core/errors';
import type { OperationState } from '../../core/operation-status';
import type { AcceptedSepaTransfer, AcceptedWithdrawal } from '../../db/queries/accepted-operation.queries';
import { reserveOutgoingPayment } from '../../db/queries/reservation.queries';
import type { ReservedTable } from '../../db/queries/reservation.queries';
import { createTestPartner, openTestOrm } from '../support/fixtures';
import { testStack } from '../support/stack';
import { endPool, openPool } from '../../db/pool';

/**
 * reserve_outgoing_payment decides a reservation in one statement. While the partner has a daily
 * limit it waits for the partner's policy row; what an operator commits during that wait (the
 * allowlist made required, the EUR account deactivated) must still decide it. These hold the
 * policy row, queue the operator's change, then the reservation, and release in that order.
 */

/** What a reservation is given: the table, the operation's id and the time. */
type Reservation = Parameters<typeof reserveOutgoingPayment>[1];

let orm: MikroORM;
let pool: pg.Pool;
beforeAll(async () => {
  orm = await openTestOrm(2);
  pool = openPool({ connectionString: testStack().databaseUrl, max: 6 });
});
afterAll(async () => {
  await endPool(pool);
  await orm.close(true);
});

/** How many sessions wait for a lock in a statement whose text matches `pattern` (the queue the test builds). */
async function waiters(pattern: string): Promise<number> {
  const { rows } = await pool.query<{ n: string }>(
    `select count(*)::text as n from pg_stat_activity
      where wait_event_type in ('Lock', 'advisory') and query ilike $1 and pid <> pg_backend_pid()`,
    [pattern],
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

/** What the reservation answered, or the refusal it raised. */
async function outcomeOf(reserving: Promise<OperationState | { unknown: string }>): Promise<unknown> {
  try {
    return await reserving;
  } catch (error) {
    if (error instanceof DomainError) return { refused: error.kind, message: error.detail };
    throw error;
  }
}

/**
 * The policy row locked by another session; the operator's statement queued behind it; then the
 * reservation queued too; the lock released. Returns what the reservation answered.
 */
async function reservedAfterOperatorChangeDuringWait(partnerId: string, operatorChange: string, operation: Reservation): Promise<unknown> {
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
    await until(async () => (await waiters('%partner_policy%')) >= 1);
    const reserving = outcomeOf(reserveOutgoingPayment(pool, operation));
    await until(async () => (await waiters('%reserve_outgoing_payment%')) >= 1);
    await holder.query('commit');
    await change;
    return await reserving;
  } finally {
    // A failed run must not leave its lock held on a pooled connection.
    await holder.query('rollback').catch(() => undefined);
    await operator.query('rollback').catch(() => undefined);
    holder.release();
    operator.release();
  }
}

/**
 * The reservation in one round trip: the operation's lock, the accepted request, the partner's
 * controls, the hold and the record, all one transaction (the refusals end to end: test/e2e).
 */
describe('a reservation in one round trip (reserveOutgoingPayment)', () => {
  const NOW = new Date('2026-11-25T10:00:00.123Z');

  /** A reservation of an operation the API accepted as `request`, under its kind. */
  interface AcceptedPayment extends Reservation {
    table: ReservedTable;
    kind: 'CRYPTO_WITHDRAWAL' | 'SEPA_TRANSFER';
    partnerId: string;
    request: AcceptedWithdrawal | AcceptedSepaTransfer;
  }

  function withdrawal(partnerId: string, overrides: Partial<AcceptedWithdrawal> = {}): AcceptedPayment {
    return {
      table: 'crypto_withdrawal',
      kind: 'CRYPTO_WITHDRAWAL',
      operationId: randomUUID(),
      partnerId,
      request: {
        user_id: null,
        currency: 'eth',
        network: 'ethereum',
        amount: '0.5',
        fee: '0',
        destination: '0x1111111111111111111111111111111111111111',
        memo: null,
        wallet_type: 'CUSTODIAL',
        receiver_type: 'NATURAL',
        beneficiary_name: 'Ada Lovelace',
        amount_eur: '1234.567890123456789',
        address_key: '0x1111111111111111111111111111111111111111',
        ...overrides,
      },
      now: NOW,
    };
  }

  function sepaTransfer(partnerId: string): AcceptedPayment {
    return {
      table: 'sepa_transfer',
      kind: 'SEPA_TRANSFER',
      operationId: randomUUID(),
      partnerId,
      request: {
        amount: '10.00',
        receiver_type: 'LEGAL',
        receiver_first_name: null,
        receiver_last_name: null,
        company_name: 'ACME',
        destination_iban: 'DE89370400440532013000',
        transfer_title: 'invoice 1',
      },
      now: NOW,
    };
  }

  /** What the API records before it starts the workflow. */
  async function accept(operation: AcceptedPayment, request: object = operation.request): Promise<void> {
    const contract = operation.kind === 'CRYPTO_WITHDRAWAL' ? cryptoWithdrawalContract : sepaTransferContract;
    await pool.query(`insert into accepted_operation (id, kind, partner_id, workflow_id, request) values ($1, $2, $3, $4, $5::jsonb)`, [
      operation.operationId,
      operation.kind,
      operation.partnerId,
      contract.workflowId(operation.operationId),
      JSON.stringify(request),
    ]);
  }

  async function written(operation: Reservation) {
    const record = await pool.query(`select * from ${operation.table} where id = $1`, [operation.operationId]);
    const hold = await pool.query<{ state: string }>('select state from ledger_transfer where id = $1', [operation.operationId]);
    return { record: record.rows[0] as Record<string, unknown> | undefined, hold: hold.rows[0]?.state };
  }

  async function available(partnerId: string, currency: string): Promise<string> {
    const { rows } = await pool.query<{ available: string }>(
      `select (posted_amount - pending_out_amount)::text as available from account
        where kind = 'PARTNER' and partner_id = $1 and currency = $2`,
      [partnerId, currency],
    );
    return rows[0]!.available;
  }

  it('holds and stores the withdrawal exactly as accepted; run again, it answers its state and writes nothing', async () => {
    const partner = await createTestPartner(orm, { deposits: { eth: '2' } });
    const operation = withdrawal(partner.partnerId, { amount: '0.123456789012345678' });
    await accept(operation);
    await expect(reserveOutgoingPayment(pool, operation)).resolves.toMatchObject({ status: 'IN_PROGRESS', stage: 'RESERVED' });
    const { record, hold } = await written(operation);
    expect(hold).toBe('PENDING');
    expect(record).toMatchObject({
      partner_id: partner.partnerId,
      user_id: null,
      currency: 'eth',
      network: 'ethereum',
      destination: '0x1111111111111111111111111111111111111111',
      beneficiary_name: 'Ada Lovelace',
      amount: '0.123456789012345678',
      fee: '0.000000000000000000',
      amount_eur: '1234.567890123456789000',
      wallet_type: 'CUSTODIAL',
      status: 'IN_PROGRESS',
      stage: 'RESERVED',
      travel_rule: null,
      transaction_hash: null,
      failure_reason: null,
      handed_off_at: null,
    });
    expect((record!.created_at as Date).toISOString()).toBe(NOW.toISOString());
    expect(await available(partner.partnerId, 'eth')).toBe('1.876543210987654322');

    await pool.query(`update crypto_withdrawal set stage = 'BROADCAST' where id = $1`, [operation.operationId]);
    await expect(reserveOutgoingPayment(pool, operation)).resolves.toEqual({
      status: 'IN_PROGRESS',
      stage: 'BROADCAST',
      amount: '0.123456789012345678',
      fee: '0',
    });
    expect(await available(partner.partnerId, 'eth')).toBe('1.876543210987654322');
  });

  it('answers UNKNOWN, with the reason, for an id the API never accepted or an operation of another kind, and writes nothing', async () => {
    const partner = await createTestPartner(orm, { deposits: { eth: '2', eur: '100' } });
    const unaccepted = withdrawal(partner.partnerId);
    // Accepted, but as the other kind of payment than the one reserved.
    const sepa = sepaTransfer(partner.partnerId);
    await accept(sepa);
    const crypto = withdrawal(partner.partnerId);
    await accept(crypto);
    for (const [operation, reason] of [
      [unaccepted, `the API accepted no operation ${unaccepted.operationId}`],
      [{ ...sepa, table: 'crypto_withdrawal' }, `operation ${sepa.operationId} is a SEPA_TRANSFER, not a CRYPTO_WITHDRAWAL`],
      [{ ...crypto, table: 'sepa_transfer' }, `operation ${crypto.operationId} is a CRYPTO_WITHDRAWAL, not a SEPA_TRANSFER`],
    ] as const) {
      await expect(reserveOutgoingPayment(pool, operation)).resolves.toEqual({ unknown: reason });
      expect(await written(operation)).toEqual({ record: undefined, hold: undefined });
    }
    expect(await available(partner.partnerId, 'eth')).toBe('2.000000000000000000');
    expect(await available(partner.partnerId, 'eur')).toBe('100.000000000000000000');
  });

  it('passes exactly the daily limit, and refuses past it saying what is left, having written nothing', async () => {
    const partner = await createTestPartner(orm, { deposits: { eth: '2' } });
    await pool.query(`insert into partner_policy (partner_id, daily_limit_eur) values ($1, 2000.50)`, [partner.partnerId]);
    const first = withdrawal(partner.partnerId);
    await accept(first);
    await expect(reserveOutgoingPayment(pool, first)).resolves.toMatchObject({ status: 'IN_PROGRESS', stage: 'RESERVED' });
    const over = withdrawal(partner.partnerId, { amount_eur: '765.94' });
    await accept(over);
    // The first counts by its record's amount_eur (1234.56…): 765.93… is left, rounded down.
    expect(await outcomeOf(reserveOutgoingPayment(pool, over))).toEqual({
      refused: 'limit-exceeded',
      message: '765.93 EUR left in the last 24 h',
    });
    expect(await written(over)).toEqual({ record: undefined, hold: undefined });
    const exact = withdrawal(partner.partnerId, { amount_eur: '765.932109876543211' });
    await accept(exact);
    await expect(reserveOutgoingPayment(pool, exact)).resolves.toMatchObject({ status: 'IN_PROGRESS', stage: 'RESERVED' });
  });

  it('sees the allowlist an operator required, and the EUR account an operator deactivated, while it waited for the policy', async () => {
    const partner = await createTestPartner(orm, { deposits: { eth: '2', eur: '100' } });
    await pool.query(`insert into partner_policy (partner_id, daily_limit_eur) values ($1, 100000)`, [partner.partnerId]);
    const crypto = withdrawal(partner.partnerId);
    await accept(crypto);
    expect(
      await reservedAfterOperatorChangeDuringWait(
        partner.partnerId,
        'update partner_policy set allowlist_required = true where partner_id = $1',
        crypto,
      ),
    ).toEqual({
      refused: 'address-not-allowlisted',
      message:
        "walletAddress is not an ACTIVE entry of the withdrawal-address book (eth on ethereum), and this partner's policy requires one",
    });
    const sepa = sepaTransfer(partner.partnerId);
    await accept(sepa);
    expect(
      await reservedAfterOperatorChangeDuringWait(
        partner.partnerId,
        `update account set fiat_status = 'WAITING_TO_BE_ACTIVATED' where partner_id = $1 and kind = 'PARTNER' and currency = 'eur'`,
        sepa,
      ),
    ).toEqual({ refused: 'partner-not-found', message: 'the partner has no active EUR account' });
    expect(await written(crypto)).toEqual({ record: undefined, hold: undefined });
    expect(await written(sepa)).toEqual({ record: undefined, hold: undefined });
  });

  it('refuses short funds as the ledger does, and writes nothing', async () => {
    const partner = await createTestPartner(orm, { deposits: { eth: '0.1' } });
    const operation = withdrawal(partner.partnerId, { amount: '0.5' });
    await accept(operation);
    const refusal = await reserveOutgoingPayment(pool, operation).catch((error: unknown) => error);
    expect(refusal).toBeInstanceOf(DomainError);
    expect(refusal).toMatchObject({ kind: 'insufficient-funds', detail: 'not enough eth available' });
    expect(await written(operation)).toEqual({ record: undefined, hold: undefined });
  });

  it("stores the operation named, whatever else its request says: the id, partner and state are the reservation's", async () => {
    const partner = await createTestPartner(orm, { deposits: { eth: '2' } });
    const other = await createTestPartner(orm);
    const operation = withdrawal(partner.partnerId);
    // Keys the API never writes into a request: the record's own columns are not the request's to set.
    await accept(operation, {
      ...operation.request,
      id: randomUUID(),
      partner_id: other.partnerId,
      status: 'SUCCESSFUL',
      stage: 'CONFIRMED',
      transaction_hash: '0xabc',
    });
    await expect(reserveOutgoingPayment(pool, operation)).resolves.toMatchObject({ status: 'IN_PROGRESS', stage: 'RESERVED' });
    expect((await written(operation)).record).toMatchObject({
      id: operation.operationId,
      partner_id: partner.partnerId,
      status: 'IN_PROGRESS',
      stage: 'RESERVED',
      transaction_hash: null,
    });
  });

  it('holds a SEPA transfer from an active EUR account, and refuses one from an inactive account', async () => {
    const partner = await createTestPartner(orm, { deposits: { eur: '100' } });
    const first = sepaTransfer(partner.partnerId);
    await accept(first);
    await expect(reserveOutgoingPayment(pool, first)).resolves.toMatchObject({ status: 'IN_PROGRESS', stage: 'RESERVED' });
    expect(await written(first)).toMatchObject({
      hold: 'PENDING',
      record: { amount: '10.000000000000000000', company_name: 'ACME', receiver_first_name: null, message_id: null, stage: 'RESERVED' },
    });
    expect(await available(partner.partnerId, 'eur')).toBe('90.000000000000000000');

    await pool.query(`update account set fiat_status = 'WAITING_TO_BE_ACTIVATED' where partner_id = $1 and currency = 'eur'`, [
      partner.partnerId,
    ]);
    const second = sepaTransfer(partner.partnerId);
    await accept(second);
    expect(await outcomeOf(reserveOutgoingPayment(pool, second))).toEqual({
      refused: 'partner-not-found',
      message: 'the partner has no active EUR account',
    });
    expect(await written(second)).toEqual({ record: undefined, hold: undefined });
    expect(await available(partner.partnerId, 'eur')).toBe('90.000000000000000000');
  });

  it("two attempts at once: the second waits for the first's lock, then sees its record (a fresh snapshot) and holds nothing", async () => {
    const partner = await createTestPartner(orm, { deposits: { eth: '2' } });
    const operation = withdrawal(partner.partnerId);
    await accept(operation);
    const holder = await pool.connect();
    try {
      // The operation's lock, held as an attempt still running would hold it.
      await holder.query('begin');
      await holder.query('select pg_advisory_xact_lock(hashtextextended($1, 0))', [operation.operationId]);
      const attempts = [reserveOutgoingPayment(pool, operation), reserveOutgoingPayment(pool, operation)];
      await until(async () => {
        const { rows } = await pool.query<{ n: string }>(
          `select count(*)::text as n from pg_stat_activity where wait_event = 'advisory' and query like '%reserve_outgoing_payment%'`,
        );
        return Number(rows[0]!.n) >= 2;
      });
      await holder.query('commit');
      const outcomes = await Promise.all(attempts);
      const held = { status: 'IN_PROGRESS', stage: 'RESERVED', amount: '0.5', fee: '0' };
      expect(outcomes).toEqual([held, held]);
    } finally {
      await holder.query('rollback').catch(() => undefined);
      holder.release();
    }
    const { rows } = await pool.query<{ n: string }>(`select count(*)::text as n from ledger_posting where transfer_id = $1`, [
      operation.operationId,
    ]);
    expect(rows[0]!.n).toBe('2');
    expect(await available(partner.partnerId, 'eth')).toBe('1.500000000000000000');
  });
});
