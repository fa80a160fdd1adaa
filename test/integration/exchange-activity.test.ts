import { randomUUID } from 'node:crypto';
import type { MikroORM } from '@mikro-orm/postgresql';
import { MockActivityEnvironment } from '@temporalio/testing';
import pg from 'pg';
import { SimulatedBankAdapter } from '../../activities/adapters/bank/simulated-bank.adapter';
import { SimulatedChainAdapter } from '../../activities/adapters/chain/simulated-chain.adapter';
import { createExchangeActivities } from '../../activities/exchange.activities';
import { exchangeContract } from '../../contracts';
import type { ExchangeInput } from '../../contracts';
import { systemClock } from '../../core/clock';
import { DomainError } from '../../core/errors';
import { createLogger } from '../../core/logger';
import { recordAcceptedOperation } from '../../db/queries/accepted-operation.queries';
import { insertRateLock } from '../../db/queries/rate-lock.queries';
import { createTestPartner, openTestOrm } from '../support/fixtures';
import type { TestPartner } from '../support/fixtures';
import { testStack } from '../support/stack';

/**
 * The exchange's step consumes its rate lock with one conditional update on its usual path
 * (issue 22) and reads why only when that matches nothing. These run it for real against the
 * run's Postgres: twice, given up on first (with a lock it could use, and with an amount it could
 * not exchange), and with an expired lock, each refused as the locked path always refused it.
 */

let orm: MikroORM;
let pool: pg.Pool;
let activities: ReturnType<typeof createExchangeActivities>;
beforeAll(async () => {
  orm = await openTestOrm(4);
  pool = new pg.Pool({ connectionString: testStack().databaseUrl, max: 4 });
  activities = createExchangeActivities({
    orm,
    pool,
    clock: systemClock,
    log: createLogger('exchange-activity-test', 'error'),
    chain: new SimulatedChainAdapter({ confirmationDelayMs: 0 }),
    bank: new SimulatedBankAdapter({ pool, settlementDelayMs: 0, rejectCreditorIbans: [] }),
    compliance: { travelRuleThresholdEur: '1000', travelRuleDeadlineMs: 60_000, denyListedAddresses: [] },
  });
});
afterAll(async () => {
  await pool.end();
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

function execute(input: ExchangeInput): Promise<{ exchangeId: string }> {
  return new MockActivityEnvironment({
    workflowType: exchangeContract.workflowType,
    workflowExecution: { workflowId: exchangeContract.workflowId(input.exchangeId), runId: randomUUID() },
  }).run((request: ExchangeInput) => activities.executeExchange(request), input);
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

  it('given up on first, is refused as abandoned, its lock left unused, whatever its amount', async () => {
    const partner = await createTestPartner(orm, { deposits: { eur: '1000' } });
    for (const amount of ['600', '0.0000001']) {
      const input = await acceptedExchange(partner, amount);
      expect(await activities.abandonExchange(input.exchangeId)).toBe('TOMBSTONED');
      expect((await refusalOf(execute(input))).kind).toBe('operation-abandoned');
      expect(await lockUsed(input.lockId)).toBe(false);
    }
  });

  it('with an expired or used lock, or an amount that buys nothing, is refused as before', async () => {
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
  });
});
