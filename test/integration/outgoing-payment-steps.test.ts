import type { MikroORM } from '@mikro-orm/postgresql';
import { ApplicationFailure } from '@temporalio/common';
import type pg from 'pg';
import { SimulatedChainAdapter } from '../../activities/adapters/chain/simulated-chain.adapter';
import { createCryptoWithdrawalActivities } from '../../activities/crypto-withdrawal.activities';
import { SimulatedBankAdapter } from '../../activities/adapters/bank/simulated-bank.adapter';
import { systemClock } from '../../core/clock';
import { createLogger } from '../../core/logger';
import { createTestPartner, openTestOrm } from '../support/fixtures';
import { registerUser } from '../support/operations';
import { testStack } from '../support/stack';
import { reservedWithdrawal, withdrawalActivitiesOn } from '../support/withdrawal-activities';
import type { WithdrawalActivities } from '../support/withdrawal-activities';
import { endPool, openPool } from '../../db/pool';

/**
 * The outgoing payment's steps take one conditional statement on their usual path (issue 22) and
 * fall back to the locked record when it matches nothing. These run the withdrawal's real steps
 * against the run's Postgres: each twice (a retry after a lost completion), on a closed
 * withdrawal, and where the usual path must not decide (a deny-listed destination).
 */

let orm: MikroORM;
let pool: pg.Pool;
let activities: WithdrawalActivities;
beforeAll(async () => {
  orm = await openTestOrm(4);
  pool = openPool({ connectionString: testStack().databaseUrl, max: 4 });
  activities = withdrawalActivitiesOn(orm, pool, new SimulatedChainAdapter({ confirmationDelayMs: 0 }));
});
afterAll(async () => {
  await endPool(pool);
  await orm.close(true);
});

async function stored(withdrawalId: string) {
  const rows = await pool.query<{
    status: string;
    stage: string;
    handed_off_at: Date | null;
    transaction_hash: string | null;
    hold: string;
  }>(
    `select w.status, w.stage, w.handed_off_at, w.transaction_hash, t.state as hold
       from crypto_withdrawal w join ledger_transfer t on t.id = w.id where w.id = $1`,
    [withdrawalId],
  );
  return rows.rows[0]!;
}

async function failureOf(promise: Promise<unknown>): Promise<Error> {
  const error = await promise.then(
    () => undefined,
    (reason: unknown) => reason,
  );
  if (!(error instanceof Error)) throw new Error('expected the step to fail');
  return error;
}

describe("a crypto withdrawal's steps after its travel-rule check", () => {
  it('mark the hand-off, broadcast and settle once however often each runs', async () => {
    const partner = await createTestPartner(orm, { deposits: { eth: '1' } });
    const { withdrawalId } = await reservedWithdrawal(activities, pool, partner, {});

    expect(await activities.markWithdrawalHandOff(withdrawalId)).toBe('MARKED');
    const marked = await stored(withdrawalId);
    expect(marked).toMatchObject({ status: 'IN_PROGRESS', stage: 'BROADCASTING', transaction_hash: null, hold: 'PENDING' });
    expect(marked.handed_off_at).toBeInstanceOf(Date);
    expect(await activities.markWithdrawalHandOff(withdrawalId)).toBe('MARKED');
    expect((await stored(withdrawalId)).handed_off_at).toEqual(marked.handed_off_at);

    const first = await activities.broadcastWithdrawal(withdrawalId);
    if ('closed' in first) throw new Error('the withdrawal was closed before its broadcast');
    expect(await activities.broadcastWithdrawal(withdrawalId)).toEqual(first);
    expect(await stored(withdrawalId)).toMatchObject({ stage: 'BROADCAST', transaction_hash: first.transactionHash, hold: 'PENDING' });

    await activities.settleWithdrawal(withdrawalId);
    await Promise.all([activities.settleWithdrawal(withdrawalId), activities.settleWithdrawal(withdrawalId)]);
    expect(await stored(withdrawalId)).toMatchObject({
      status: 'SUCCESSFUL',
      stage: 'SETTLED',
      transaction_hash: first.transactionHash,
      hold: 'POSTED',
    });
    // Settled: a late hand-off or broadcast (a Reset) finds it over and sends nothing.
    expect(await activities.markWithdrawalHandOff(withdrawalId)).toEqual({ closed: { status: 'SUCCESSFUL', stage: 'SETTLED' } });
    expect(await activities.broadcastWithdrawal(withdrawalId)).toEqual({ closed: { status: 'SUCCESSFUL', stage: 'SETTLED' } });
  });

  it('hand nothing off once released, and refuse to settle one never handed off', async () => {
    const partner = await createTestPartner(orm, { deposits: { eth: '1' } });
    const { withdrawalId } = await reservedWithdrawal(activities, pool, partner, {});

    const settling = await failureOf(activities.settleWithdrawal(withdrawalId));
    expect(settling).toBeInstanceOf(ApplicationFailure);
    expect((settling as ApplicationFailure).type).toBe('operation-conflict');
    expect(await stored(withdrawalId)).toMatchObject({ status: 'IN_PROGRESS', stage: 'RESERVED', hold: 'PENDING', handed_off_at: null });

    expect(await activities.releaseWithdrawal(withdrawalId, 'cancelled for the test', 'CANCELLED')).toBe('RELEASED');
    expect(await activities.markWithdrawalHandOff(withdrawalId)).toEqual({ closed: { status: 'UNSUCCESSFUL', stage: 'CANCELLED' } });
    expect(await stored(withdrawalId)).toMatchObject({ status: 'UNSUCCESSFUL', hold: 'VOIDED', handed_off_at: null });
  });

  it('refuse the hand-off of a destination on the deny list, in any letter case, its travel-rule data stored or not', async () => {
    const partner = await createTestPartner(orm, { deposits: { eth: '1' } });
    const destination = '0x52908400098527886E0F7030069857D2E4169EE7';
    const denying = createCryptoWithdrawalActivities({
      orm,
      pool,
      clock: systemClock,
      log: createLogger('outgoing-payment-steps-test', 'error'),
      chain: new SimulatedChainAdapter({ confirmationDelayMs: 0 }),
      bank: new SimulatedBankAdapter({ pool, settlementDelayMs: 0, rejectCreditorIbans: [] }),
      compliance: { travelRuleThresholdEur: '1000', travelRuleDeadlineMs: 60_000, denyListedAddresses: [destination.toLowerCase()] },
    });
    const { withdrawalId } = await reservedWithdrawal(denying, pool, partner, { destination });

    const refusal = await failureOf(denying.markWithdrawalHandOff(withdrawalId));
    expect(refusal.message).toContain('its destination is on the deny list');
    expect(await stored(withdrawalId)).toMatchObject({ stage: 'RESERVED', handed_off_at: null, hold: 'PENDING' });
  });

  it('hold back a destination that is not printable ASCII: the deny list compares ASCII letter case only', async () => {
    const partner = await createTestPartner(orm, { deposits: { eth: '1' } });
    const { withdrawalId } = await reservedWithdrawal(activities, pool, partner, {
      destination: '0x52908400098527886E0F7030069857D2E4169Eé7',
    });
    const refusal = await failureOf(activities.markWithdrawalHandOff(withdrawalId));
    expect(refusal.message).toContain('its destination is not printable ASCII');
    expect(await stored(withdrawalId)).toMatchObject({ stage: 'RESERVED', handed_off_at: null, hold: 'PENDING' });
  });
});

describe("a crypto withdrawal's travel-rule check, one read and one conditional update", () => {
  it("stores the user's data as the originator, birth date as stored, and the destination's 24-hour sum decides", async () => {
    const partner = await createTestPartner(orm, { deposits: { eth: '2' } });
    const userId = await registerUser(orm, partner, 'user-travel-rule');
    const destination = '0x52908400098527886E0F7030069857D2E4169EE8';
    await reservedWithdrawal(activities, pool, partner, { user_id: userId, destination, amount_eur: '600', wallet_type: 'NON_CUSTODIAL' });
    // 600 + 600 EUR to one destination (in another letter case) within 24 hours: above the 1000 EUR threshold.
    const { withdrawalId } = await reservedWithdrawal(activities, pool, partner, {
      user_id: userId,
      destination: destination.toLowerCase(),
      amount_eur: '600',
      wallet_type: 'NON_CUSTODIAL',
    });
    const stored = await pool.query(`select travel_rule from crypto_withdrawal where id = $1`, [withdrawalId]);
    const travelRule = stored.rows[0].travel_rule;
    expect(travelRule.requiresCompletion).toBe(true);
    const person = travelRule.ivms101.originator.originatorPersons[0].naturalPerson;
    expect(person.name.nameIdentifier[0]).toMatchObject({ primaryIdentifier: 'Nowak', secondaryIdentifier: 'Anna' });
    expect(person.dateAndPlaceOfBirth).toEqual({ dateOfBirth: '1990-01-01', placeOfBirth: 'PL' });
    expect(JSON.stringify(travelRule)).not.toContain('90010112345');

    // Run again, it finds the same; once handed off, it decides nothing again.
    expect(await activities.checkTravelRule(withdrawalId)).toMatchObject({ handedOff: false, requiresCompletion: true });
    await pool.query(`update crypto_withdrawal set handed_off_at = now() where id = $1`, [withdrawalId]);
    expect(await activities.checkTravelRule(withdrawalId)).toMatchObject({ handedOff: true });
  });
});
