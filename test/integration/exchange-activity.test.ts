import { randomUUID } from 'node:crypto';
import type { MikroORM } from '@mikro-orm/postgresql';
import { MockActivityEnvironment } from '@temporalio/testing';
import type pg from 'pg';
import { SimulatedBankAdapter } from '../../activities/adapters/bank/simulated-bank.adapter';
import { SimulatedChainAdapter } from '../../activities/adapters/chain/simulated-chain.adapter';
import type { ActivityDependencies } from '../../activities/dependencies';
import { createExchangeActivities } from '../../activities/exchange.activities';
import { exchangeContract } from '../../contracts';
import type { ExchangeInput } from '../../contracts';
import { systemClock } from '../../core/clock';
import { DomainError } from '../../core/errors';
import { createLogger } from '../../core/logger';
import { recordAcceptedOperation } from '../../db/queries/accepted-operation.queries';
import { executeExchange } from '../../db/queries/exchange.queries';
import type { ExchangeExecution } from '../../db/queries/exchange.queries';
import { findRateLockTerms, insertRateLock } from '../../db/queries/rate-lock.queries';
import { createTestPartner, openTestOrm } from '../support/fixtures';
import type { TestPartner } from '../support/fixtures';
import { testStack } from '../support/stack';
import { endPool, openPool } from '../../db/pool';

/**
 * The exchange's step reads its rate lock and exchanges in one statement that uses the lock only
 * at the rates it read. These run it for real against the run's Postgres: twice, given up on first
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

/** A lock valid for 40 s from now (or one given, already used), accepted as the API does: the exchange's input. */
async function acceptedExchange(partner: TestPartner, amount: string, validForMs = 40_000, usedLockId?: string): Promise<ExchangeInput> {
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
  const input: ExchangeInput = {
    exchangeId: randomUUID(),
    partnerId: partner.partnerId,
    lockId,
    currencyFrom: 'eur',
    currencyTo: 'btc',
    amount,
    requestedAt: now.toISOString(),
  };
  await recordAcceptedOperation(pool, {
    id: input.exchangeId,
    kind: 'EXCHANGE',
    partnerId: partner.partnerId,
    workflowId: exchangeContract.workflowId(input.exchangeId),
    request: input,
  });
  return input;
}

function execute(input: ExchangeInput, using = activities): Promise<{ exchangeId: string }> {
  return new MockActivityEnvironment({
    workflowType: exchangeContract.workflowType,
    workflowExecution: { workflowId: exchangeContract.workflowId(input.exchangeId), runId: randomUUID() },
  }).run((request: ExchangeInput) => using.executeExchange(request), input);
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
    expect(await lockUsed(input.lockId)).toBe(true);
    const transfers = await pool.query(`select state from ledger_transfer where id = $1`, [input.exchangeId]);
    expect(transfers.rows).toEqual([{ state: 'POSTED' }]);
    const exchanges = await pool.query(`select trim_scale(amount_to)::text as amount_to from exchange where id = $1`, [input.exchangeId]);
    expect(exchanges.rows).toEqual([{ amount_to: '0.0099' }]);
  });

  it('reads the lock and exchanges in one statement', async () => {
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
    expect(names).toEqual(['find_rate_lock_terms', 'execute_exchange']);
    expect(await lockUsed(input.lockId)).toBe(true);
  });

  it('given up on first, is refused as abandoned, its lock left unused, whatever its amount', async () => {
    const partner = await createTestPartner(orm, { deposits: { eur: '1000' } });
    for (const amount of ['600', '0.0000001']) {
      const input = await acceptedExchange(partner, amount);
      expect(await activities.abandonExchange(input.exchangeId)).toBe('TOMBSTONED');
      expect((await refusalOf(execute(input))).kind).toBe('operation-abandoned');
      expect(await lockUsed(input.lockId)).toBe(false);
    }
  });

  it('with an expired, used or unknown lock, or an amount that buys nothing, is refused with the reason', async () => {
    const partner = await createTestPartner(orm, { deposits: { eur: '1000' } });
    const expired = await acceptedExchange(partner, '10', -1);
    expect(await refusalOf(execute(expired))).toEqual({ kind: 'invalid-exchange-lock', message: 'the lock has expired' });
    const tiny = await acceptedExchange(partner, '0.0000001');
    expect((await refusalOf(execute(tiny))).message).toContain('amount is too small');
    expect(await lockUsed(tiny.lockId)).toBe(false);
    const first = await acceptedExchange(partner, '10');
    await execute(first);
    const reusing = await acceptedExchange(partner, '10', 40_000, first.lockId);
    expect(await refusalOf(execute(reusing))).toEqual({ kind: 'invalid-exchange-lock', message: 'the lock has already been used' });
    for (const lockId of [randomUUID(), 'not-a-lock']) {
      const unknown = await acceptedExchange(partner, '10', 40_000, lockId);
      expect(await refusalOf(execute(unknown))).toEqual({ kind: 'invalid-exchange-lock', message: 'the lock does not exist' });
    }
  });
});

/**
 * execute_exchange decides everything in one statement after the lock's read: the operation's
 * lock, the accepted request, the refusals in the order the partner is told them, the lock used at
 * the rates the quote came from, the transfer posted and the exchange stored, all one transaction.
 */
describe('an exchange in one statement (executeExchange)', () => {
  const RATES = { eur: '1', btc: '60000' };

  /** The partner's fee, as its locks store it. */
  async function feeOf(input: ExchangeInput): Promise<string> {
    const terms = await findRateLockTerms(pool, { id: input.lockId, partnerId: input.partnerId });
    return terms!.feePercentage;
  }

  async function execution(input: ExchangeInput, overrides: Partial<ExchangeExecution> = {}): Promise<ExchangeExecution> {
    const now = new Date();
    return {
      exchangeId: input.exchangeId,
      workflowId: exchangeContract.workflowId(input.exchangeId),
      request: input,
      lock: 'lock' in overrides ? overrides.lock : { rates: RATES, feePercentage: await feeOf(input) },
      quote: {
        transfer: {
          transferId: input.exchangeId,
          kind: 'EXCHANGE',
          postings: [
            { partnerId: input.partnerId, currency: 'eur', amount: `-${input.amount}` },
            { systemAccount: 'EXCHANGE_DESK', currency: 'eur', amount: input.amount },
            { systemAccount: 'EXCHANGE_DESK', currency: 'btc', amount: '-0.01' },
            { partnerId: input.partnerId, currency: 'btc', amount: '0.01' },
          ],
        },
        exchange: {
          id: input.exchangeId,
          partner_id: input.partnerId,
          lock_id: input.lockId,
          currency_from: 'eur',
          currency_to: 'btc',
          amount_from: input.amount,
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

  async function written(input: ExchangeInput) {
    const exchange = await pool.query('select id from exchange where id = $1', [input.exchangeId]);
    const transfer = await pool.query<{ state: string }>('select state from ledger_transfer where id = $1', [input.exchangeId]);
    return { exchanges: exchange.rowCount, transfer: transfer.rows[0]?.state, lockUsed: await lockUsed(input.lockId) };
  }

  it('uses the lock, posts and stores at once; run again, it finds the exchange and writes nothing more', async () => {
    const partner = await createTestPartner(orm, { deposits: { eur: '1000' } });
    const input = await acceptedExchange(partner, '600');
    await expect(executeExchange(pool, await execution(input))).resolves.toEqual({ outcome: 'EXCHANGED' });
    expect(await written(input)).toEqual({ exchanges: 1, transfer: 'POSTED', lockUsed: true });
    await expect(executeExchange(pool, await execution(input))).resolves.toEqual({ outcome: 'EXISTS' });
    expect(await written(input)).toEqual({ exchanges: 1, transfer: 'POSTED', lockUsed: true });
  });

  it('answers UNKNOWN, with the reason, for an input the API did not accept or another workflow, and writes nothing', async () => {
    const partner = await createTestPartner(orm, { deposits: { eur: '1000' } });
    const input = await acceptedExchange(partner, '600');
    const forged = { ...input, exchangeId: randomUUID() };
    const cases: Array<[Partial<ExchangeExecution>, string]> = [
      [
        { request: { ...input, amount: '700' } },
        `the workflow input differs from the request the API accepted for operation ${input.exchangeId}`,
      ],
      [{ workflowId: `sepa-transfer-${input.exchangeId}` }, `operation ${input.exchangeId} is a EXCHANGE, not a EXCHANGE`],
    ];
    for (const [overrides, reason] of cases)
      await expect(executeExchange(pool, await execution(input, overrides))).resolves.toEqual({ outcome: 'UNKNOWN', reason });
    await expect(executeExchange(pool, await execution(forged))).resolves.toEqual({
      outcome: 'UNKNOWN',
      reason: `the API accepted no operation ${forged.exchangeId}`,
    });
    expect(await written(input)).toEqual({ exchanges: 0, transfer: undefined, lockUsed: false });
  });

  it('refuses in the order the partner is told: given up on, then the lock (unknown, used, expired), then the amount', async () => {
    const partner = await createTestPartner(orm, { deposits: { eur: '1000' } });
    const expiredAndAbandoned = await acceptedExchange(partner, '600', -1);
    expect(await activities.abandonExchange(expiredAndAbandoned.exchangeId)).toBe('TOMBSTONED');
    expect(await refusalOf(executeExchange(pool, await execution(expiredAndAbandoned)))).toMatchObject({ kind: 'operation-abandoned' });
    const first = await acceptedExchange(partner, '10');
    await executeExchange(pool, await execution(first));
    const used = await acceptedExchange(partner, '10', 40_000, first.lockId);
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
