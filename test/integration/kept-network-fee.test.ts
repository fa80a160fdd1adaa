import type { MikroORM } from '@mikro-orm/postgresql';
import { ApplicationFailure } from '@temporalio/common';
import type pg from 'pg';
import type { ChainAdapter, ConfirmationState } from '../../activities/adapters/chain/chain-adapter';
import { SimulatedChainAdapter } from '../../activities/adapters/chain/simulated-chain.adapter';
import { Decimal } from '../../core/money';
import { derivedTransferId } from '../../db/ledger/derived-transfer-id';
import { findHistoryPages } from '../../db/queries/history.queries';
import {
  findHoldsWithoutOpenOperation,
  findOpenWithoutHold,
  findSuccessfulNotPosted,
  findUnsuccessfulNotVoided,
} from '../../db/queries/reconciliation.queries';
import { eventually } from '../support/eventually';
import { createTestPartner, openTestOrm } from '../support/fixtures';
import type { TestPartner } from '../support/fixtures';
import { reservedWithdrawal, withdrawalActivitiesOn } from '../support/withdrawal-activities';
import type { WithdrawalActivities } from '../support/withdrawal-activities';
import { testStack } from '../support/stack';
import { endPool, openPool } from '../../db/pool';

/**
 * A crypto withdrawal rejected because its transaction failed on chain: the network took its fee,
 * so the rejection refunds the amount and keeps the fee, as two ledger lines in one transaction;
 * any other rejection refunds both. The activities run for real against the run's Postgres; only
 * the chain's answer is chosen by the test (test/e2e/evm-withdrawal.test.ts provokes a real revert).
 */

const AMOUNT = '0.25';
const FEE = '0.0005';
const DEPOSIT = '1';

let orm: MikroORM;
let pool: pg.Pool;
beforeAll(async () => {
  orm = await openTestOrm(4);
  pool = openPool({ connectionString: testStack().databaseUrl, max: 4 });
});
afterAll(async () => {
  await endPool(pool);
  await orm.close(true);
});

/** The real activities, on a simulated chain whose every transaction ends as `answer`. */
function activitiesOnChainAnswering(answer: ConfirmationState) {
  const chain = new SimulatedChainAdapter({ confirmationDelayMs: 0 });
  return activitiesOnChain({ broadcast: (request) => chain.broadcast(request), confirmationState: () => Promise.resolve(answer) });
}

/** The real activities, on the chain given. */
function activitiesOnChain(chain: ChainAdapter) {
  return withdrawalActivitiesOn(orm, pool, chain);
}

/** Reserved, handed off and broadcast: what the workflow has done when the chain answers. */
async function broadcastWithdrawal(activities: WithdrawalActivities, partner: TestPartner) {
  const { withdrawalId } = await handedOffWithdrawal(activities, partner);
  const broadcast = await activities.broadcastWithdrawal(withdrawalId);
  if ('closed' in broadcast) throw new Error('the withdrawal was closed before its broadcast');
  return { withdrawalId, broadcast };
}

/** Reserved, checked and marked handed off: the next step gives it to the chain. */
async function handedOffWithdrawal(activities: WithdrawalActivities, partner: TestPartner) {
  const { withdrawalId } = await reservedWithdrawal(activities, pool, partner, { amount: AMOUNT, fee: FEE });
  expect(await activities.markWithdrawalHandOff(withdrawalId)).toBe('MARKED');
  return { withdrawalId };
}

async function availableEth(partner: TestPartner): Promise<string> {
  const rows = await pool.query<{ available: string }>(
    `select (posted_amount - pending_out_amount)::text as available from account where partner_id = $1 and currency = 'eth'`,
    [partner.partnerId],
  );
  return new Decimal(rows.rows[0]!.available).toFixed();
}

/** Every ledger line of the partner's eth account, with its transfer. */
async function ledgerLines(partner: TestPartner) {
  const rows = await pool.query<{ transfer_id: string; kind: string; state: string; amount: string }>(
    `select t.id as transfer_id, t.kind, t.state, trim_scale(p.amount)::text as amount
       from ledger_posting p join ledger_transfer t on t.id = p.transfer_id join account a on a.id = p.account_id
      where a.partner_id = $1 and a.currency = 'eth' and t.kind <> 'DEPOSIT'
      order by t.created_at, t.id`,
    [partner.partnerId],
  );
  return rows.rows;
}

async function failureOf(promise: Promise<unknown>): Promise<ApplicationFailure> {
  const error = await promise.then(
    () => undefined,
    (reason: unknown) => reason,
  );
  if (!(error instanceof ApplicationFailure)) throw new Error(`expected an ApplicationFailure, got ${String(error)}`);
  return error;
}

describe('a crypto withdrawal whose transaction failed on chain', () => {
  it('is rejected with the amount refunded and the fee kept, as separate ledger lines; run twice, the fee is kept once', async () => {
    const partner = await createTestPartner(orm, { deposits: { eth: DEPOSIT } });
    const activities = activitiesOnChainAnswering('FAILED');
    const { withdrawalId, broadcast } = await broadcastWithdrawal(activities, partner);
    expect(await availableEth(partner)).toBe(new Decimal(DEPOSIT).minus(AMOUNT).minus(FEE).toFixed());

    // The chain's answer, as the workflow hears it (the patient wait: the polling one needs an activity context); then the workflow's reject step, run twice (a
    // retry after a lost completion, a Reset) and once more concurrently with a third run.
    const failure = await failureOf(activities.awaitWithdrawalConfirmation(withdrawalId, { network: 'ethereum', ...broadcast }));
    expect(failure.type).toBe('transaction-failed');
    const reason = failure.message;
    await activities.rejectWithdrawal(withdrawalId, reason);
    await Promise.all([activities.rejectWithdrawal(withdrawalId, reason), activities.rejectWithdrawal(withdrawalId, reason)]);

    expect(await availableEth(partner)).toBe(new Decimal(DEPOSIT).minus(FEE).toFixed());
    const feeTransferId = derivedTransferId(withdrawalId, 'kept-network-fee');
    expect(await ledgerLines(partner)).toEqual([
      // The hold of amount + fee, voided: the refund.
      { transfer_id: withdrawalId, kind: 'CRYPTO_WITHDRAWAL', state: 'VOIDED', amount: `-${new Decimal(AMOUNT).plus(FEE).toFixed()}` },
      // The fee, a transfer of its own, posted once.
      { transfer_id: feeTransferId, kind: 'CRYPTO_WITHDRAWAL_FEE', state: 'POSTED', amount: `-${FEE}` },
    ]);
    const feeIncome = await pool.query<{ amount: string }>(
      `select trim_scale(p.amount)::text as amount from ledger_posting p join account a on a.id = p.account_id
        where p.transfer_id = $1 and a.kind = 'SYSTEM' and a.system_code = 'FEE_INCOME'`,
      [feeTransferId],
    );
    expect(feeIncome.rows).toEqual([{ amount: FEE }]);

    const stored = await pool.query<{ status: string; stage: string; failed: boolean; external_rejection: string }>(
      `select status, stage, failed_on_chain_at is not null as failed, external_rejection from crypto_withdrawal where id = $1`,
      [withdrawalId],
    );
    expect(stored.rows).toEqual([{ status: 'UNSUCCESSFUL', stage: 'REJECTED', failed: true, external_rejection: reason }]);
    const kept = await pool.query(
      `select id, trim_scale(amount)::text as amount from crypto_withdrawal_kept_fee where withdrawal_id = $1`,
      [withdrawalId],
    );
    expect(kept.rows).toEqual([{ id: feeTransferId, amount: FEE }]);
  });

  it("shows in the partner's history as the withdrawal, UNSUCCESSFUL, and its kept fee, a SUCCESSFUL debit that names it", async () => {
    const partner = await createTestPartner(orm, { deposits: { eth: DEPOSIT } });
    const activities = activitiesOnChainAnswering('FAILED');
    const { withdrawalId, broadcast } = await broadcastWithdrawal(activities, partner);
    const failure = await failureOf(activities.awaitWithdrawalConfirmation(withdrawalId, { network: 'ethereum', ...broadcast }));
    await activities.rejectWithdrawal(withdrawalId, failure.message);

    const request = {
      partnerId: partner.partnerId,
      from: new Date(Date.now() - 3_600_000),
      until: new Date(Date.now() + 60_000),
      after: undefined,
      limit: 10,
    };
    const page = (await findHistoryPages(pool, [request])).get(request)!;
    const entries = page
      .filter((row) => row.type === 'cryptoWithdrawal')
      .map(({ id, type, amount, currency, status, withdrawal_id }) => ({
        id,
        type,
        amount,
        currency,
        status,
        withdrawal_id,
      }));
    expect(entries).toEqual([
      // Newest first: the fee was kept after the withdrawal was made.
      {
        id: derivedTransferId(withdrawalId, 'kept-network-fee'),
        type: 'cryptoWithdrawal',
        amount: `-${FEE}`,
        currency: 'eth',
        status: 'SUCCESSFUL',
        withdrawal_id: withdrawalId,
      },
      {
        id: withdrawalId,
        type: 'cryptoWithdrawal',
        amount: `-${new Decimal(AMOUNT).plus(FEE).toFixed()}`,
        currency: 'eth',
        status: 'UNSUCCESSFUL',
        withdrawal_id: null,
      },
    ]);
    // The SUCCESSFUL entries (the deposit, the kept fee) add up to the balance: the history explains it.
    const moved = page.filter((row) => row.status === 'SUCCESSFUL').reduce((sum, row) => sum.plus(row.amount), new Decimal(0));
    expect(moved.toFixed()).toBe(await availableEth(partner));
  });

  it('leaves reconciliation nothing to report about the withdrawal or its fee', async () => {
    const partner = await createTestPartner(orm, { deposits: { eth: DEPOSIT } });
    const activities = activitiesOnChainAnswering('FAILED');
    const { withdrawalId, broadcast } = await broadcastWithdrawal(activities, partner);
    const failure = await failureOf(activities.awaitWithdrawalConfirmation(withdrawalId, { network: 'ethereum', ...broadcast }));
    await activities.rejectWithdrawal(withdrawalId, failure.message);

    const ours = new Set([withdrawalId, derivedTransferId(withdrawalId, 'kept-network-fee')]);
    const findings = [
      ...(await findHoldsWithoutOpenOperation(pool)).map((row) => row.transfer_id),
      ...(await findUnsuccessfulNotVoided(pool)).map((row) => row.id),
      ...(await findSuccessfulNotPosted(pool)).map((row) => row.id),
      ...(await findOpenWithoutHold(pool, new Date(Date.now() + 60_000))).map((row) => row.id),
    ];
    expect(findings.filter((id) => ours.has(id))).toEqual([]);
    // The fee's record is checked like an operation's: SUCCESSFUL with its transfer posted.
    const kept = await pool.query(`select count(*)::int as count from crypto_withdrawal_kept_fee where withdrawal_id = $1`, [withdrawalId]);
    expect(kept.rows).toEqual([{ count: 1 }]);
  });
});

describe('a crypto withdrawal rejected otherwise', () => {
  it('refunds amount and fee when the node refused the transaction: no fee transfer, no history line of its own', async () => {
    const partner = await createTestPartner(orm, { deposits: { eth: DEPOSIT } });
    const refused = ApplicationFailure.create({
      type: 'broadcast-rejected',
      message: 'the node refused the transaction',
      nonRetryable: true,
    });
    const activities = activitiesOnChain({ broadcast: () => Promise.reject(refused), confirmationState: () => Promise.resolve('PENDING') });
    const { withdrawalId } = await handedOffWithdrawal(activities, partner);
    expect((await failureOf(activities.broadcastWithdrawal(withdrawalId))).type).toBe('broadcast-rejected');
    // The workflow's reason is not what releases: the refusal the broadcast step stored is.
    await activities.rejectWithdrawal(withdrawalId, 'whatever the workflow says');
    await activities.rejectWithdrawal(withdrawalId, 'whatever the workflow says');

    expect(await availableEth(partner)).toBe(new Decimal(DEPOSIT).toFixed());
    expect(await ledgerLines(partner)).toEqual([
      { transfer_id: withdrawalId, kind: 'CRYPTO_WITHDRAWAL', state: 'VOIDED', amount: `-${new Decimal(AMOUNT).plus(FEE).toFixed()}` },
    ]);
    const stored = await pool.query(`select status, stage, failure_reason from crypto_withdrawal where id = $1`, [withdrawalId]);
    expect(stored.rows).toEqual([{ status: 'UNSUCCESSFUL', stage: 'REJECTED', failure_reason: 'the node refused the transaction' }]);
    const kept = await pool.query(`select count(*)::int as count from crypto_withdrawal_kept_fee where withdrawal_id = $1`, [withdrawalId]);
    expect(kept.rows).toEqual([{ count: 0 }]);
  });
});

describe('a rejection the chain never made', () => {
  it('releases nothing on a refusal one run of the broadcast heard while another run got the transaction taken', async () => {
    const partner = await createTestPartner(orm, { deposits: { eth: DEPOSIT } });
    const chain = new SimulatedChainAdapter({ confirmationDelayMs: 0 });
    const refused = ApplicationFailure.create({ type: 'broadcast-rejected', message: 'already known', nonRetryable: true });
    let calls = 0;
    const activities = activitiesOnChain({
      broadcast: (request) => (++calls === 1 ? Promise.reject(refused) : chain.broadcast(request)),
      confirmationState: () => Promise.resolve('PENDING'),
    });
    const { withdrawalId } = await handedOffWithdrawal(activities, partner);
    expect((await failureOf(activities.broadcastWithdrawal(withdrawalId))).type).toBe('broadcast-rejected');
    const taken = await activities.broadcastWithdrawal(withdrawalId);
    if ('closed' in taken) throw new Error('the withdrawal was closed before its second broadcast');

    expect((await failureOf(activities.rejectWithdrawal(withdrawalId, 'already known'))).type).toBe('operation-conflict');
    expect(await availableEth(partner)).toBe(new Decimal(DEPOSIT).minus(AMOUNT).minus(FEE).toFixed());
    // The refusal went with the hash: nothing stored says the chain rejected it (an operator's release is refused too).
    const stored = await pool.query(`select status, transaction_hash, external_rejection from crypto_withdrawal where id = $1`, [
      withdrawalId,
    ]);
    expect(stored.rows).toEqual([{ status: 'IN_PROGRESS', transaction_hash: taken.transactionHash, external_rejection: null }]);
  });

  it('releases nothing when the hash is stored between the refusal read and the record locked', async () => {
    const partner = await createTestPartner(orm, { deposits: { eth: DEPOSIT } });
    const refused = ApplicationFailure.create({ type: 'broadcast-rejected', message: 'already known', nonRetryable: true });
    const activities = activitiesOnChain({ broadcast: () => Promise.reject(refused), confirmationState: () => Promise.resolve('PENDING') });
    const { withdrawalId } = await handedOffWithdrawal(activities, partner);
    expect((await failureOf(activities.broadcastWithdrawal(withdrawalId))).type).toBe('broadcast-rejected');

    // The record held by another transaction: the rejection reads the refusal, then waits for its lock.
    const holder = await pool.connect();
    try {
      await holder.query('begin');
      await holder.query('select id from crypto_withdrawal where id = $1 for update', [withdrawalId]);
      const rejected = failureOf(activities.rejectWithdrawal(withdrawalId, 'already known'));
      const { pid } = (await holder.query<{ pid: number }>('select pg_backend_pid() as pid')).rows[0]!;
      await eventually(async () => {
        const waiting = await pool.query(`select count(*)::int as count from pg_stat_activity where $1 = any(pg_blocking_pids(pid))`, [
          pid,
        ]);
        expect(waiting.rows[0]).toEqual({ count: 1 });
      });
      // Another run of the broadcast: its transaction was taken, and it stores the hash.
      await holder.query(`update crypto_withdrawal set transaction_hash = $2 where id = $1`, [withdrawalId, `0x${'ab'.repeat(32)}`]);
      await holder.query('commit');
      expect((await rejected).type).toBe('operation-conflict');
    } finally {
      holder.release();
    }
    expect(await availableEth(partner)).toBe(new Decimal(DEPOSIT).minus(AMOUNT).minus(FEE).toFixed());
    const stored = await pool.query(`select status from crypto_withdrawal where id = $1`, [withdrawalId]);
    expect(stored.rows).toEqual([{ status: 'IN_PROGRESS' }]);
  });

  it('releases nothing: a workflow (ours after a bad Reset, or not ours) cannot refund coins that may have left', async () => {
    const partner = await createTestPartner(orm, { deposits: { eth: DEPOSIT } });
    const activities = activitiesOnChainAnswering('PENDING');
    const { withdrawalId } = await broadcastWithdrawal(activities, partner);
    const failure = await failureOf(activities.rejectWithdrawal(withdrawalId, 'the node refused the transaction'));
    expect(failure.type).toBe('operation-conflict');
    expect(failure.nonRetryable).toBe(true);

    expect(await availableEth(partner)).toBe(new Decimal(DEPOSIT).minus(AMOUNT).minus(FEE).toFixed());
    const stored = await pool.query(`select status, stage, external_rejection from crypto_withdrawal where id = $1`, [withdrawalId]);
    expect(stored.rows).toEqual([{ status: 'IN_PROGRESS', stage: 'BROADCAST', external_rejection: null }]);
  });
});
