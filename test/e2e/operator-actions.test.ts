import { randomUUID } from 'node:crypto';
import type { WorkflowHandle } from '@temporalio/client';
import { CancelledFailure } from '@temporalio/common';
import { newWalletAddress } from '../../db/services/account-identifiers';
import { cryptoWithdrawalContract } from '../../contracts';
import { eventually } from '../support/eventually';
import { createTestPartner } from '../support/fixtures';
import type { TestPartner } from '../support/fixtures';
import { startTestApi } from '../support/http';
import type { TestApi } from '../support/http';
import { balancesOf, ethWithdrawalBody } from '../support/operations';
import { runOpsCli } from '../support/ops-cli';
import { testStack } from '../support/stack';
import { startTestWorker } from '../support/test-worker';
import type { TestWorker } from '../support/test-worker';
import { useTestApi } from '../support/use-test-api';

/**
 * What operator actions in the Temporal UI (cancel, reset) and a lost answer (the API's wait
 * running out) do to money, through HTTP and the real Temporal server.
 */

// Confirmations take seconds here, so a withdrawal can be caught waiting for one.
const slowChainQueue = `test-worker-${randomUUID()}`;
const ctx = useTestApi({ taskQueue: slowChainQueue });
let slowChain: TestWorker;
beforeAll(async () => {
  slowChain = await startTestWorker({ taskQueue: slowChainQueue, chainConfirmationDelayMs: 6_000, travelRuleDeadlineMs: 120_000 });
  ctx.defer(() => slowChain.stop());
});

const sql = async <Row>(query: string, params: unknown[] = []): Promise<Row[]> => ctx.orm.em.fork().getConnection().execute(query, params);

async function withdraw(through: TestApi, partner: TestPartner, body: Record<string, unknown>, headers: Record<string, string> = {}) {
  return through.request('POST', '/v1/partner/crypto-withdrawal', { apiKey: partner.apiKey, body, headers });
}

async function withdrawalRow(withdrawalId: string) {
  const rows = await sql<{
    status: string;
    stage: string;
    transaction_hash: string | null;
    cancel_requested_at: Date | null;
    transfer_state: string;
  }>(
    `select w.status, w.stage, w.transaction_hash, w.cancel_requested_at, t.state as transfer_state
       from crypto_withdrawal w join ledger_transfer t on t.id = w.id where w.id = ?`,
    [withdrawalId],
  );
  return rows[0]!;
}

async function untilStage(withdrawalId: string, stage: string) {
  return eventually(
    async () => {
      const row = await withdrawalRow(withdrawalId);
      expect(row.stage).toBe(stage);
      return row;
    },
    { timeoutMs: 30_000 },
  );
}

const handleOf = (withdrawalId: string): WorkflowHandle =>
  ctx.temporal.workflow.getHandle(cryptoWithdrawalContract.workflowId(withdrawalId));

describe('cancelling a withdrawal in the Temporal UI', () => {
  it('while it waits for travel-rule data releases amount + fee and ends UNSUCCESSFUL, as Canceled', async () => {
    const partner = await createTestPartner(ctx.orm, { deposits: { eth: '1' } });
    // 0.5 eth = EUR 1500 to a non-custodial wallet: waits for travel-rule data.
    const response = await withdraw(ctx.api, partner, ethWithdrawalBody({ amount: 0.5, walletType: 'NON_CUSTODIAL' }));
    expect(response.status).toBe(200);
    const withdrawalId = response.json.withdrawalId as string;
    await untilStage(withdrawalId, 'AWAITING_TRAVEL_RULE_DATA');
    expect((await balancesOf(ctx.api, partner)).eth).toBe('0.499500000000000000');

    await handleOf(withdrawalId).cancel();
    await expect(handleOf(withdrawalId).result()).rejects.toMatchObject({ cause: expect.any(CancelledFailure) });
    expect((await handleOf(withdrawalId).describe()).status.name).toBe('CANCELLED');
    expect(await withdrawalRow(withdrawalId)).toMatchObject({ status: 'UNSUCCESSFUL', stage: 'CANCELLED', transfer_state: 'VOIDED' });
    expect((await balancesOf(ctx.api, partner)).eth).toBe('1.000000000000000000');
  });

  it('once broadcast only records the request: the money stays held until the chain answers, then settles once', async () => {
    const partner = await createTestPartner(ctx.orm, { deposits: { eth: '1' } });
    const response = await withdraw(ctx.api, partner, ethWithdrawalBody());
    const withdrawalId = response.json.withdrawalId as string;
    const broadcast = await untilStage(withdrawalId, 'BROADCAST');

    await handleOf(withdrawalId).cancel();
    await eventually(async () => expect((await withdrawalRow(withdrawalId)).cancel_requested_at).not.toBeNull());
    // The database itself refuses to void a transfer whose coins may have left.
    await expect(sql(`update ledger_transfer set state = 'VOIDED', voided_at = now() where id = ?`, [withdrawalId])).rejects.toThrow(
      /handed to the chain/,
    );
    expect((await withdrawalRow(withdrawalId)).transfer_state).toBe('PENDING');

    expect(await handleOf(withdrawalId).result()).toMatchObject({ status: 'SUCCESSFUL', stage: 'SETTLED' });
    expect((await handleOf(withdrawalId).describe()).status.name).toBe('COMPLETED');
    expect(await withdrawalRow(withdrawalId)).toMatchObject({
      status: 'SUCCESSFUL',
      transfer_state: 'POSTED',
      transaction_hash: broadcast.transaction_hash,
    });
    expect((await balancesOf(ctx.api, partner)).eth).toBe('0.899500000000000000');
  }, 60_000);
});

describe('resetting a broadcast withdrawal after the deny list changed', () => {
  it('never refunds coins that left: the reset run settles the same transaction once', async () => {
    const partner = await createTestPartner(ctx.orm, { deposits: { eth: '1' } });
    const destination = newWalletAddress('eth');
    const response = await withdraw(ctx.api, partner, ethWithdrawalBody({ walletAddress: destination }));
    const withdrawalId = response.json.withdrawalId as string;
    const broadcast = await untilStage(withdrawalId, 'BROADCAST');

    slowChain.denyList.push(destination);
    try {
      const handle = handleOf(withdrawalId);
      const { runId } = await handle.describe();
      const events = (await handle.fetchHistory()).events ?? [];
      // The reservation is a local activity: its result is the first marker, written by the workflow task that ran it.
      const reserved = events.find((event) => event.markerRecordedEventAttributes?.markerName === 'core_local_activity');
      // That workflow task: the reset run re-does the reservation (it finds the withdrawal) and every check after it.
      const resetPoint = events
        .filter((event) => Number(event.eventId) < Number(reserved?.eventId) && event.workflowTaskCompletedEventAttributes)
        .pop();
      expect(resetPoint).toBeDefined();
      const reset = await ctx.temporal.workflowService.resetWorkflowExecution({
        namespace: testStack().namespace,
        workflowExecution: { workflowId: cryptoWithdrawalContract.workflowId(withdrawalId), runId },
        reason: 'test: re-run the checks after the deny list changed',
        workflowTaskFinishEventId: resetPoint!.eventId,
        requestId: randomUUID(),
      });
      expect(reset.runId).not.toBe(runId);

      expect(await handle.result()).toMatchObject({ status: 'SUCCESSFUL' });
      expect(await withdrawalRow(withdrawalId)).toMatchObject({
        status: 'SUCCESSFUL',
        transfer_state: 'POSTED',
        transaction_hash: broadcast.transaction_hash,
      });
      expect((await balancesOf(ctx.api, partner)).eth).toBe('0.899500000000000000');
    } finally {
      slowChain.denyList.pop();
    }
  }, 60_000);
});

describe('a POST whose wait runs out', () => {
  it('with no worker polling answers 503 "nothing was moved"; the worker arriving later moves nothing; the same key then succeeds', async () => {
    const idleQueue = `idle-${randomUUID()}`;
    // Long enough for the retry to be reserved by the worker started meanwhile, even on a loaded machine.
    const impatient = await startTestApi({ taskQueue: idleQueue, responseTimeoutMs: 5_000 });
    let late: TestWorker | undefined;
    try {
      const partner = await createTestPartner(ctx.orm, { deposits: { eth: '1' } });
      const body = ethWithdrawalBody();
      const first = await withdraw(impatient, partner, body, { 'idempotency-key': 'race-no-worker' });
      expect(first.status).toBe(503);
      expect(first.json).toMatchObject({ errorCode: 'P503' });
      expect(first.json.errorMessage).toMatch(/nothing was moved/);
      expect((await balancesOf(ctx.api, partner)).eth).toBe('1.000000000000000000');

      // The workflow the API gave up on is still queued: a worker arriving after the deadline runs it.
      late = await startTestWorker({ taskQueue: idleQueue });
      const given = await eventually(async () => {
        const found = [];
        for await (const workflow of ctx.temporal.workflow.list({ query: `PartnerId = '${partner.partnerId}'` })) found.push(workflow);
        expect(found).toHaveLength(1);
        return found[0]!;
      });
      const result = await ctx.temporal.workflow.getHandle(given.workflowId).result();
      expect(result).toMatchObject({ status: 'UNSUCCESSFUL', stage: 'ABANDONED' });
      expect((await ctx.temporal.workflow.getHandle(given.workflowId).describe()).status.name).toBe('COMPLETED');
      const abandonedId = given.workflowId.replace('crypto-withdrawal-', '');
      expect(await sql(`select state from ledger_transfer where id = ?`, [abandonedId])).toEqual([{ state: 'VOIDED' }]);
      expect(await sql(`select count(*)::int as postings from ledger_posting where transfer_id = ?`, [abandonedId])).toEqual([
        { postings: 0 },
      ]);
      expect((await balancesOf(ctx.api, partner)).eth).toBe('1.000000000000000000');

      // "Safe to retry": the same key starts a new withdrawal, which now has a worker.
      const retry = await withdraw(impatient, partner, body, { 'idempotency-key': 'race-no-worker' });
      expect(retry.status).toBe(200);
      expect(retry.json.withdrawalId).not.toBe(abandonedId);
      await eventually(async () => expect((await withdrawalRow(retry.json.withdrawalId)).status).toBe('SUCCESSFUL'));
      expect((await balancesOf(ctx.api, partner)).eth).toBe('0.899500000000000000');
    } finally {
      await late?.stop();
      await impatient.stop();
    }
  }, 90_000);

  it('when the reservation committed before the deadline but its answer came late, answers with the withdrawal as usual', async () => {
    let answered!: () => void;
    const apiAnswered = new Promise<void>((resolve) => (answered = resolve));
    const slowAnswer = await startTestWorker({
      wrapActivities: (activities) => ({
        ...activities,
        // Commits, then answers only after the API stopped waiting and answered (or after 60 s).
        async reserveWithdrawal(input) {
          const state = await activities.reserveWithdrawal(input);
          await Promise.race([apiAnswered, new Promise((resolve) => setTimeout(resolve, 60_000).unref())]);
          return state;
        },
      }),
    });
    // Long enough for the worker to commit the reservation, even on a loaded machine.
    const impatient = await startTestApi({ taskQueue: slowAnswer.taskQueue, responseTimeoutMs: 5_000 });
    try {
      const partner = await createTestPartner(ctx.orm, { deposits: { eth: '1' } });
      const response = await withdraw(impatient, partner, ethWithdrawalBody());
      answered();
      expect(response.status).toBe(200);
      const withdrawalId = response.json.withdrawalId as string;
      await eventually(async () => expect((await withdrawalRow(withdrawalId)).status).toBe('SUCCESSFUL'));
      expect((await balancesOf(ctx.api, partner)).eth).toBe('0.899500000000000000');
    } finally {
      answered();
      await impatient.stop();
      await slowAnswer.stop();
    }
  }, 120_000);
});

describe('an exchange whose wait runs out', () => {
  const exchange = (through: TestApi, partner: TestPartner, lockId: string) =>
    through.request('POST', '/v1/partner/exchange', {
      apiKey: partner.apiKey,
      body: { amount: 300, currencyFrom: 'eur', currencyTo: 'eth', lockId },
      headers: { 'idempotency-key': `exchange-${lockId}` },
    });

  it('moves nothing when no worker runs it in time, keeps the lock usable, and answers 201 when it did commit', async () => {
    const idleQueue = `idle-${randomUUID()}`;
    // Long enough for a worker started meanwhile to commit the retry, even on a loaded machine.
    const impatient = await startTestApi({ taskQueue: idleQueue, responseTimeoutMs: 5_000 });
    let late: TestWorker | undefined;
    let answered!: () => void;
    const apiAnswered = new Promise<void>((resolve) => (answered = resolve));
    try {
      const partner = await createTestPartner(ctx.orm, { deposits: { eur: '1000' } });
      const lock = await impatient.request('GET', '/v1/partner/get-lock', { apiKey: partner.apiKey });
      const first = await exchange(impatient, partner, lock.json.id);
      expect(first.status).toBe(503);
      expect(first.json.errorMessage).toMatch(/nothing was moved/);

      late = await startTestWorker({
        taskQueue: idleQueue,
        wrapActivities: (activities) => ({
          ...activities,
          // Commits, then answers only after the API stopped waiting and answered (or after 60 s).
          async executeExchange(input) {
            const result = await activities.executeExchange(input);
            await Promise.race([apiAnswered, new Promise((resolve) => setTimeout(resolve, 60_000).unref())]);
            return result;
          },
        }),
      });
      // The retry with the same key is a new exchange on the same, still unused lock; its answer
      // comes late, but the money moved first, so the API answers 201 as usual.
      const retry = await exchange(impatient, partner, lock.json.id);
      answered();
      expect(retry.status).toBe(201);
      expect((await balancesOf(ctx.api, partner)).eur).toBe('700.00');
      expect((await balancesOf(ctx.api, partner)).eth).toBe('0.099000000000000000');
      // The first one, run late by the worker, found its tombstone and moved nothing.
      const abandoned = await eventually(async () => {
        const workflows = [];
        for await (const workflow of ctx.temporal.workflow.list({ query: `PartnerId = '${partner.partnerId}'` })) workflows.push(workflow);
        const found = workflows.find((workflow) => workflow.workflowId !== `exchange-${retry.json.exchangeId}`);
        expect(found).toBeDefined();
        return found!;
      });
      expect(await ctx.temporal.workflow.getHandle(abandoned.workflowId).result()).toMatchObject({
        status: 'UNSUCCESSFUL',
        stage: 'ABANDONED',
      });
    } finally {
      answered();
      await late?.stop();
      await impatient.stop();
    }
  }, 120_000);
});

describe('a refused request', () => {
  it('ends its workflow Completed with the refusal, and leaves a tombstone so no late attempt or Reset can still move money', async () => {
    // Funds enough (a refusal for funds alone is answered before any workflow), a daily limit the withdrawal passes.
    const partner = await createTestPartner(ctx.orm, { deposits: { eth: '1' } });
    expect((await runOpsCli(['partner', 'set-policy', '--partner', partner.partnerId, '--daily-limit-eur', '1'])).code).toBe(0);
    const refused = await withdraw(ctx.api, partner, ethWithdrawalBody());
    expect(refused.status).toBe(400);
    expect(refused.json.errorCode).toBe('P442');
    const workflow = await eventually(async () => {
      const found = [];
      for await (const each of ctx.temporal.workflow.list({ query: `PartnerId = '${partner.partnerId}'` })) found.push(each);
      expect(found).toHaveLength(1);
      return found[0]!;
    });
    const handle = ctx.temporal.workflow.getHandle(workflow.workflowId);
    expect(await handle.result()).toMatchObject({
      status: 'UNSUCCESSFUL',
      stage: 'REFUSED_LIMIT_EXCEEDED',
      refusal: { kind: 'limit-exceeded' },
    });
    expect((await handle.describe()).status.name).toBe('COMPLETED');
    const withdrawalId = workflow.workflowId.replace('crypto-withdrawal-', '');
    expect(await sql(`select state from ledger_transfer where id = ?`, [withdrawalId])).toEqual([{ state: 'VOIDED' }]);
    expect(await sql(`select count(*)::int as rows from crypto_withdrawal where id = ?`, [withdrawalId])).toEqual([{ rows: 0 }]);
  });
});

describe('a SEPA transfer with names at the pain.001 limit', () => {
  const sepa = (partner: TestPartner, firstName: string, lastName: string) =>
    ctx.api.request('POST', '/v1/partner/sepa-transfer', {
      apiKey: partner.apiKey,
      body: {
        currency: 'eur',
        amount: '10.00',
        receiverType: 'NATURAL',
        receiverFirstName: firstName,
        receiverLastName: lastName,
        destinationIban: 'DE89370400440532013000',
        transferTitle: 'Limits',
      },
    });

  it('settles a creditor name of exactly 70 characters and refuses 71 up front', async () => {
    const partner = await createTestPartner(ctx.orm, { deposits: { eur: '100' } });
    const accepted = await sepa(partner, 'A'.repeat(35), 'B'.repeat(34));
    expect(accepted.status).toBe(201);
    await eventually(async () => {
      const rows = await sql<{ status: string }>(`select status from sepa_transfer where id = ?`, [accepted.json.transferId]);
      expect(rows[0]?.status).toBe('SUCCESSFUL');
    });
    const refused = await sepa(partner, 'Maria Magdalena Alexandra Christina', 'von Hohenzollern-Sigmaringen-Wittelsbach');
    expect(refused.status).toBe(400);
    expect(refused.json.errorCode).toBe('P400');
    expect((await balancesOf(ctx.api, partner)).eur).toBe('90.00');
  });
});
