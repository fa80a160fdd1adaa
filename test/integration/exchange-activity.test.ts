import { randomUUID } from 'node:crypto';
import type { MikroORM } from '@mikro-orm/postgresql';
import type pg from 'pg';
import { SimulatedBankAdapter } from '../../activities/adapters/bank/simulated-bank.adapter';
import { SimulatedChainAdapter } from '../../activities/adapters/chain/simulated-chain.adapter';
import type { ActivityDependencies } from '../../activities/dependencies';
import { createExchangeActivities } from '../../activities/exchange.activities';
import { exchangeContract } from '../../contracts';
import { systemClock } from '../../core/clock';
import { DomainError } from '../../core/errors';
import { createLogger } from '../../core/logger';
import { recordAcceptedOperation } from '../../db/queries/accepted-operation.queries';
import type { AcceptedExchange } from '../../db/queries/accepted-operation.queries';
import { executeExchange } from '../../db/queries/exchange.queries';
import type { ExchangeExecution } from '../../db/queries/exchange.queries';
import { insertRateLock } from '../../db/queries/rate-lock.queries';
import { createTestPartner, openTestOrm } from '../support/fixtures';
import type { TestPartner } from '../support/fixtures';
import { testStack } from '../support/stack';
import { acceptedWithdrawal, inOwnWorkflow } from '../support/withdrawal-activities';
import { endPool, openPool } from '../../db/pool';

/**
 * The exchange's step reads the accepted request and its rate lock, then exchanges in one statement
 * that uses the lock only at the rates it read. These run it for real against the run's Postgres: twice, given up on first
 * (with a lock it could use, and with an amount it could not exchange), with an expired, a used
 * and an unknown lock.
 */

let orm: MikroORM;
let pool: pg.Pool;
let activities: ReturnType<typeof createExchangeActivities>;
beforeAll(async () => {
  orm = await openTestOrm(4);
  pool = openPool({ connectionString: testStack().databaseUrl, max: 4 });
  activities = createExchangeActivities(dependencies());
});

function dependencies(): ActivityDependencies {
  return {
    orm,
    pool,
    clock: systemClock,
    log: createLogger('exchange-activity-test', 'error'),
    chain: new SimulatedChainAdapter({ confirmationDelayMs: 0 }),
    bank: new SimulatedBankAdapter({ pool, settlementDelayMs: 0, rejectCreditorIbans: [] }),
    compliance: { travelRuleThresholdEur: '1000', travelRuleDeadlineMs: 60_000, denyListedAddresses: [] },
  };
}
afterAll(async () => {
  await endPool(pool);
  await orm.close(true);
});

/** An exchange the API accepted: its id, its partner and the request as recorded. */
interface AcceptedTestExchange {
  exchangeId: string;
  partnerId: string;
  request: AcceptedExchange;
}

/** A lock valid for 40 s from now (or one given, already used), and an exchange under it accepted as the API does. */
async function acceptedExchange(
  partner: TestPartner,
  amount: string,
  validForMs = 40_000,
  usedLockId?: string,
): Promise<AcceptedTestExchange> {
  const now = new Date();
  const lockId = usedLockId ?? randomUUID();
  if (!usedLockId)
    await insertRateLock(pool, {
      id: lockId,
      partnerId: partner.partnerId,
      rates: { eur: '1', btc: '60000' },
      createdAt: new Date(now.getTime() - 1_000),
      validUntil: new Date(now.getTime() + validForMs),
    });
  const exchangeId = randomUUID();
  const request: AcceptedExchange = {
    lock_id: lockId,
    currency_from: 'eur',
    currency_to: 'btc',
    amount_from: amount,
    requested_at: now.toISOString(),
  };
  await recordAcceptedOperation(pool, {
    id: exchangeId,
    kind: 'EXCHANGE',
    partnerId: partner.partnerId,
    workflowId: exchangeContract.workflowId(exchangeId),
    request,
  });
  return { exchangeId, partnerId: partner.partnerId, request };
}

/** The step as the exchange's own workflow runs it: given only the id. */
function execute(input: AcceptedTestExchange, using = activities): Promise<{ exchangeId: string }> {
  return inOwnWorkflow(exchangeContract, input.exchangeId, () => using.executeExchange(input.exchangeId));
}

async function refusalOf(promise: Promise<unknown>): Promise<{ kind: string; message: string }> {
  const error = await promise.then(
    () => undefined,
    (reason: unknown) => reason,
  );
  if (!(error instanceof DomainError)) throw new Error(`expected a refusal, got ${String(error)}`);
  return { kind: error.kind, message: error.detail ?? '' };
}

async function lockUsed(lockId: string): Promise<boolean> {
  const rows = await pool.query<{ used: boolean }>('select used_at is not null as used from rate_lock where id = $1', [lockId]);
  return rows.rows[0]!.used;
}

describe('an exchange step', () => {
  it('moves the money once and uses its lock once, however often it runs', async () => {
    const partner = await createTestPartner(orm, { deposits: { eur: '1000' } });
    const input = await acceptedExchange(partner, '600');
    expect(await execute(input)).toEqual({ exchangeId: input.exchangeId });
    expect(await execute(input)).toEqual({ exchangeId: input.exchangeId });
    expect(await lockUsed(input.request.lock_id)).toBe(true);
    const transfers = await pool.query(`select state from ledger_transfer where id = $1`, [input.exchangeId]);
    expect(transfers.rows).toEqual([{ state: 'POSTED' }]);
    const exchanges = await pool.query(`select trim_scale(amount_to)::text as amount_to from exchange where id = $1`, [input.exchangeId]);
    expect(exchanges.rows).toEqual([{ amount_to: '0.0099' }]);
  });

  it('reads the request and its lock, then exchanges in one statement', async () => {
    const names: string[] = [];
    // The same pool, telling the names of the prepared statements it is given.
    const counting = Object.create(pool) as pg.Pool;
    counting.query = ((config: unknown, values?: unknown) => {
      if (typeof config === 'object' && config !== null && 'name' in config) names.push(String(config.name));
      return (pool.query as (config: unknown, values?: unknown) => Promise<unknown>)(config, values);
    }) as pg.Pool['query'];
    const observed = createExchangeActivities({ ...dependencies(), pool: counting });
    const partner = await createTestPartner(orm, { deposits: { eur: '1000' } });
    const input = await acceptedExchange(partner, '600');
    await expect(execute(input, observed)).resolves.toEqual({ exchangeId: input.exchangeId });
    expect(names).toEqual(['find_exchange_terms', 'execute_exchange']);
    expect(await lockUsed(input.request.lock_id)).toBe(true);
  });

  it('given up on first, is refused as abandoned, its lock left unused, whatever its amount', async () => {
    const partner = await createTestPartner(orm, { deposits: { eur: '1000' } });
    for (const amount of ['600', '0.0000001']) {
      const input = await acceptedExchange(partner, amount);
      expect(await activities.abandonExchange(input.exchangeId)).toBe('TOMBSTONED');
      expect((await refusalOf(execute(input))).kind).toBe('operation-abandoned');
      expect(await lockUsed(input.request.lock_id)).toBe(false);
    }
  });

  it('with an expired, used or unknown lock, or an amount that buys nothing, is refused with the reason', async () => {
    const partner = await createTestPartner(orm, { deposits: { eur: '1000' } });
    const expired = await acceptedExchange(partner, '10', -1);
    expect(await refusalOf(execute(expired))).toEqual({ kind: 'invalid-exchange-lock', message: 'the lock has expired' });
    const tiny = await acceptedExchange(partner, '0.0000001');
    expect((await refusalOf(execute(tiny))).message).toContain('amount is too small');
    expect(await lockUsed(tiny.request.lock_id)).toBe(false);
    const first = await acceptedExchange(partner, '10');
    await execute(first);
    const reusing = await acceptedExchange(partner, '10', 40_000, first.request.lock_id);
    expect(await refusalOf(execute(reusing))).toEqual({ kind: 'invalid-exchange-lock', message: 'the lock has already been used' });
    for (const lockId of [randomUUID(), 'not-a-lock']) {
      const unknown = await acceptedExchange(partner, '10', 40_000, lockId);
      expect(await refusalOf(execute(unknown))).toEqual({ kind: 'invalid-exchange-lock', message: 'the lock does not exist' });
    }
  });
});

/**
 * execute_exchange decides everything in one statement after the read of the request and its lock:
 * the operation's lock, the accepted request, the refusals in the order the partner is told them, the lock used at
 * the rates the quote came from, the transfer posted and the exchange stored, all one transaction.
 */
describe('an exchange in one statement (executeExchange)', () => {
  const RATES = { eur: '1', btc: '60000' };

  /** The partner's fee, as the exchange's lock stores it (read by the lock: a forged id has no terms). */
  async function feeOf(input: AcceptedTestExchange): Promise<string> {
    const { rows } = await pool.query<{ fee: string }>('select fee_percentage::text as fee from rate_lock where id = $1', [
      input.request.lock_id,
    ]);
    return rows[0]!.fee;
  }

  async function execution(input: AcceptedTestExchange, overrides: Partial<ExchangeExecution> = {}): Promise<ExchangeExecution> {
    const now = new Date();
    const amount = input.request.amount_from;
    return {
      exchangeId: input.exchangeId,
      lock: 'lock' in overrides ? overrides.lock : { rates: RATES, feePercentage: await feeOf(input) },
      quote: {
        transfer: {
          transferId: input.exchangeId,
          kind: 'EXCHANGE',
          postings: [
            { partnerId: input.partnerId, currency: 'eur', amount: `-${amount}` },
            { systemAccount: 'EXCHANGE_DESK', currency: 'eur', amount },
            { systemAccount: 'EXCHANGE_DESK', currency: 'btc', amount: '-0.01' },
            { partnerId: input.partnerId, currency: 'btc', amount: '0.01' },
          ],
        },
        exchange: {
          id: input.exchangeId,
          partner_id: input.partnerId,
          lock_id: input.request.lock_id,
          currency_from: 'eur',
          currency_to: 'btc',
          amount_from: amount,
          amount_to: '0.01',
          fee_amount: '0',
          status: 'SUCCESSFUL',
          created_at: now.toISOString(),
        },
      },
      now,
      ...overrides,
    };
  }

  async function written(input: AcceptedTestExchange) {
    const exchange = await pool.query('select id from exchange where id = $1', [input.exchangeId]);
    const transfer = await pool.query<{ state: string }>('select state from ledger_transfer where id = $1', [input.exchangeId]);
    return { exchanges: exchange.rowCount, transfer: transfer.rows[0]?.state, lockUsed: await lockUsed(input.request.lock_id) };
  }

  it('uses the lock, posts and stores at once; run again, it finds the exchange and writes nothing more', async () => {
    const partner = await createTestPartner(orm, { deposits: { eur: '1000' } });
    const input = await acceptedExchange(partner, '600');
    await expect(executeExchange(pool, await execution(input))).resolves.toEqual({ outcome: 'EXCHANGED' });
    expect(await written(input)).toEqual({ exchanges: 1, transfer: 'POSTED', lockUsed: true });
    await expect(executeExchange(pool, await execution(input))).resolves.toEqual({ outcome: 'EXISTS' });
    expect(await written(input)).toEqual({ exchanges: 1, transfer: 'POSTED', lockUsed: true });
  });

  it('answers UNKNOWN, with the reason, for an id the API never accepted or an operation of another kind, and writes nothing', async () => {
    const partner = await createTestPartner(orm, { deposits: { eur: '1000' } });
    const input = await acceptedExchange(partner, '600');
    // The same quote under other ids: one the API never accepted, and a withdrawal it accepted.
    const unaccepted = { ...input, exchangeId: randomUUID() };
    const { withdrawalId } = await acceptedWithdrawal(pool, partner);
    const withdrawal = { ...input, exchangeId: withdrawalId };
    for (const [forged, reason] of [
      [unaccepted, `the API accepted no operation ${unaccepted.exchangeId}`],
      [withdrawal, `operation ${withdrawalId} is a CRYPTO_WITHDRAWAL, not a EXCHANGE`],
    ] as const) {
      await expect(executeExchange(pool, await execution(forged))).resolves.toEqual({ outcome: 'UNKNOWN', reason });
      expect(await written(forged)).toEqual({ exchanges: 0, transfer: undefined, lockUsed: false });
    }
  });

  it('refuses in the order the partner is told: given up on, then the lock (unknown, used, expired), then the amount', async () => {
    const partner = await createTestPartner(orm, { deposits: { eur: '1000' } });
    const expiredAndAbandoned = await acceptedExchange(partner, '600', -1);
    expect(await activities.abandonExchange(expiredAndAbandoned.exchangeId)).toBe('TOMBSTONED');
    expect(await refusalOf(executeExchange(pool, await execution(expiredAndAbandoned)))).toMatchObject({ kind: 'operation-abandoned' });
    const first = await acceptedExchange(partner, '10');
    await executeExchange(pool, await execution(first));
    const used = await acceptedExchange(partner, '10', 40_000, first.request.lock_id);
    const expired = await acceptedExchange(partner, '600', -1);
    const unknown = await acceptedExchange(partner, '10', 40_000, randomUUID());
    const tooSmall = { problem: 'amount is too small: it buys no btc after rounding' };
    for (const [input, message] of [
      [used, 'the lock has already been used'],
      [expired, 'the lock has expired'],
      [unknown, 'the lock does not exist'],
    ] as const) {
      const lock = input === unknown ? { lock: undefined } : {};
      const refusal = await refusalOf(executeExchange(pool, await execution(input, { quote: tooSmall, ...lock })));
      expect(refusal).toEqual({ kind: 'invalid-exchange-lock', message });
    }
    const small = await acceptedExchange(partner, '0.0000001');
    expect(await refusalOf(executeExchange(pool, await execution(small, { quote: tooSmall })))).toEqual({
      kind: 'invalid-request',
      message: tooSmall.problem,
    });
    expect(await written(small)).toEqual({ exchanges: 0, transfer: undefined, lockUsed: false });
  });

  it("writes nothing for a quote made at other terms than its lock's (a bug upstream, not a refusal)", async () => {
    const partner = await createTestPartner(orm, { deposits: { eur: '1000' } });
    const input = await acceptedExchange(partner, '600');
    const fee = await feeOf(input);
    for (const lock of [
      { rates: { eur: '1', btc: '50000' }, feePercentage: fee },
      { rates: RATES, feePercentage: `${fee}1` },
    ]) {
      const error = await executeExchange(pool, await execution(input, { lock })).then(
        () => undefined,
        (reason: unknown) => reason,
      );
      expect(error).not.toBeInstanceOf(DomainError);
      expect(String(error)).toContain('quoted on other terms than its lock');
    }
    expect(await written(input)).toEqual({ exchanges: 0, transfer: undefined, lockUsed: false });
  });

  it('refuses what the ledger refuses and rolls the lock back: insufficient funds', async () => {
    const partner = await createTestPartner(orm, { deposits: { eur: '100' } });
    const poor = await acceptedExchange(partner, '600');
    expect(await refusalOf(executeExchange(pool, await execution(poor)))).toMatchObject({ kind: 'insufficient-funds' });
    expect(await written(poor)).toEqual({ exchanges: 0, transfer: undefined, lockUsed: false });
  });
});
