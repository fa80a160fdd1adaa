import { randomUUID } from 'node:crypto';
import path from 'node:path';
import { Client, Connection, WorkflowFailedError } from '@temporalio/client';
import { ActivityFailure, ApplicationFailure } from '@temporalio/common';
import { NativeConnection, Worker } from '@temporalio/worker';
import type { WorkflowHandle } from '@temporalio/client';
import { cryptoWithdrawalContract, exchangeContract, sepaTransferContract, statusQuery } from '../../contracts';
import type { CryptoWithdrawalInput, OperationProgress, SepaTransferInput } from '../../contracts';
import { newWalletAddress } from '../../db/services/account-identifiers';
import { eventually } from '../support/eventually';
import { createTestPartner } from '../support/fixtures';
import { balancesOf } from '../support/operations';
import { testStack } from '../support/stack';
import { testDataConverter } from '../support/temporal-access';
import { useTestApi } from '../support/use-test-api';

const ctx = useTestApi();

/**
 * Issue 17, "Temporal is a boundary": what an insider who reaches the Temporal server can do
 * without the API. A plaintext client is what `temporal workflow start` is; the encrypted one
 * holds the payload key too.
 */
let plaintextConnection: Connection;
let plaintext: Client;

beforeAll(async () => {
  plaintextConnection = await Connection.connect({ address: testStack().temporalAddress });
  plaintext = new Client({ connection: plaintextConnection, namespace: testStack().namespace });
});

afterAll(async () => {
  await plaintextConnection?.close();
});

/** A withdrawal's workflow input for an id the API never accepted. */
function forgedWithdrawal(): CryptoWithdrawalInput {
  return { withdrawalId: randomUUID(), currency: 'eth', network: 'ethereum' };
}

async function ledgerTransferOf(id: string): Promise<unknown> {
  const rows = await ctx.orm.em.fork().getConnection().execute(`select state from ledger_transfer where id::text = ?`, [id]);
  return rows[0];
}

async function refusedRowsOf(workflowId: string): Promise<Array<{ reason: string }>> {
  return ctx.orm.em.fork().getConnection().execute(`select reason from refused_operation where workflow_id = ?`, [workflowId]);
}

async function resultOf(handle: WorkflowHandle): Promise<OperationProgress> {
  return (await handle.result()) as OperationProgress;
}

describe('a workflow started straight on Temporal', () => {
  it('with plaintext input (the bare CLI) fails before its code runs: nothing held, nothing sent', async () => {
    const partner = await createTestPartner(ctx.orm, { deposits: { eth: '5' } });
    const input = forgedWithdrawal();
    const handle = await plaintext.workflow.start(cryptoWithdrawalContract.workflowType, {
      taskQueue: testStack().taskQueue,
      workflowId: cryptoWithdrawalContract.workflowId(input.withdrawalId),
      args: [input],
    });
    const failure = await handle.result().catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(WorkflowFailedError);
    expect((failure as WorkflowFailedError).cause).toMatchObject({ type: 'payload-refused' });
    expect((failure as WorkflowFailedError).cause?.message).toContain('not encrypted with a configured payload key');
    expect((await balancesOf(ctx.api, partner)).eth).toBe('5.000000000000000000');
    expect(await ledgerTransferOf(input.withdrawalId)).toBeUndefined();
  });

  it('encrypted with the payload key, for an operation the API never accepted, is refused as REFUSED_UNKNOWN_OPERATION', async () => {
    const partner = await createTestPartner(ctx.orm, { deposits: { eth: '5' } });
    const input = forgedWithdrawal();
    const workflowId = cryptoWithdrawalContract.workflowId(input.withdrawalId);
    const handle = await ctx.temporal.workflow.start(cryptoWithdrawalContract.workflowType, {
      taskQueue: testStack().taskQueue,
      workflowId,
      args: [input],
    });
    const progress = await resultOf(handle);
    expect(progress).toMatchObject({
      status: 'UNSUCCESSFUL',
      stage: 'REFUSED_UNKNOWN_OPERATION',
      refusal: { kind: 'unknown-operation', message: `the API accepted no operation ${input.withdrawalId}` },
    });
    expect((await balancesOf(ctx.api, partner)).eth).toBe('5.000000000000000000');
    // No hold, no tombstone either: the id may be a real operation's.
    expect(await ledgerTransferOf(input.withdrawalId)).toBeUndefined();
    expect(await refusedRowsOf(workflowId)).toEqual([{ reason: `the API accepted no operation ${input.withdrawalId}` }]);
  });

  it('refuses a SEPA transfer and an exchange the API never accepted the same way', async () => {
    const partner = await createTestPartner(ctx.orm, { deposits: { eur: '500', btc: '1' } });
    const transfer: SepaTransferInput = { transferId: randomUUID() };
    const sepa = await ctx.temporal.workflow.execute(sepaTransferContract.workflowType, {
      taskQueue: testStack().taskQueue,
      workflowId: sepaTransferContract.workflowId(transfer.transferId),
      args: [transfer],
    });
    expect(sepa).toMatchObject({ status: 'UNSUCCESSFUL', stage: 'REFUSED_UNKNOWN_OPERATION' });
    const exchangeId = randomUUID();
    const exchange = await ctx.temporal.workflow.execute(exchangeContract.workflowType, {
      taskQueue: testStack().taskQueue,
      workflowId: exchangeContract.workflowId(exchangeId),
      args: [{ exchangeId, currencyFrom: 'btc', currencyTo: 'eur' }],
    });
    expect(exchange).toMatchObject({ status: 'UNSUCCESSFUL', stage: 'REFUSED_UNKNOWN_OPERATION' });
    expect(await balancesOf(ctx.api, partner)).toMatchObject({ eur: '500.00', btc: '1.00000000' });
  });

  it('with the id of a real withdrawal under another workflow id changes nothing of it', async () => {
    const partner = await createTestPartner(ctx.orm, { deposits: { eth: '5' } });
    const response = await ctx.api.request('POST', '/v1/partner/crypto-withdrawal', {
      apiKey: partner.apiKey,
      // Above the EUR threshold to a non-custodial wallet: it waits for travel-rule data.
      body: {
        currency: 'eth',
        amount: 1,
        walletAddress: newWalletAddress('eth'),
        name: 'Jan Kowalski',
        walletType: 'NON_CUSTODIAL',
        receiverType: 'NATURAL',
      },
    });
    expect(response.status).toBe(200);
    const withdrawalId = response.json.withdrawalId as string;
    const real = ctx.temporal.workflow.getHandle(cryptoWithdrawalContract.workflowId(withdrawalId));
    // Waiting for its data before anything is forged: "still waits" below then means something.
    await eventually(async () => expect(await real.query(statusQuery)).toMatchObject({ status: 'IN_PROGRESS_TR_DATA' }));
    const balanceWhileHeld = (await balancesOf(ctx.api, partner)).eth;

    const elsewhere = `crypto-withdrawal-${randomUUID()}`;
    const altered = await ctx.temporal.workflow.execute(cryptoWithdrawalContract.workflowType, {
      taskQueue: testStack().taskQueue,
      workflowId: elsewhere,
      args: [{ withdrawalId, currency: 'eth', network: 'ethereum' }],
    });
    expect(altered).toMatchObject({ stage: 'REFUSED_UNKNOWN_OPERATION' });
    expect((await refusedRowsOf(elsewhere))[0]?.reason).toBe(
      `reserveWithdrawal for operation ${withdrawalId} runs only in workflow ${cryptoWithdrawalContract.workflowId(withdrawalId)} (cryptoWithdrawalWorkflow)`,
    );
    // The real one still waits, its money still held: a refusal releases nothing of it.
    expect(await real.query(statusQuery)).toMatchObject({ status: 'IN_PROGRESS_TR_DATA' });
    expect((await balancesOf(ctx.api, partner)).eth).toBe(balanceWhileHeld);
    expect(await ledgerTransferOf(withdrawalId)).toEqual({ state: 'PENDING' });
  });
});

describe('a signal or update sent to a running workflow without the payload key', () => {
  it('is ignored or rejected, and the workflow goes on as before', async () => {
    const partner = await createTestPartner(ctx.orm, { deposits: { eth: '5' } });
    const response = await ctx.api.request('POST', '/v1/partner/crypto-withdrawal', {
      apiKey: partner.apiKey,
      body: {
        currency: 'eth',
        amount: 1,
        walletAddress: newWalletAddress('eth'),
        name: 'Jan',
        walletType: 'OTHER',
        receiverType: 'NATURAL',
      },
    });
    const withdrawalId = response.json.withdrawalId as string;
    const workflowId = cryptoWithdrawalContract.workflowId(withdrawalId);
    const real = ctx.temporal.workflow.getHandle(workflowId);
    await eventually(async () => expect(await real.query(statusQuery)).toMatchObject({ status: 'IN_PROGRESS_TR_DATA' }));

    const forged = plaintext.workflow.getHandle(workflowId);
    await expect(forged.executeUpdate('completeTravelRule', { args: [{ completedBy: 'mallory@example.com' }] })).rejects.toThrow();
    // Still waiting, and its tasks still run: the encrypted query answers.
    expect(await real.query(statusQuery)).toMatchObject({ status: 'IN_PROGRESS_TR_DATA', stage: 'AWAITING_TRAVEL_RULE_DATA' });
    // Then the deadline (4 s in tests) runs out as for any withdrawal nobody completed.
    const final = (await real.result()) as OperationProgress;
    expect(final).toMatchObject({ status: 'UNSUCCESSFUL', stage: 'FAILED' });
    expect((await balancesOf(ctx.api, partner)).eth).toBe('5.000000000000000000');
  });
});

describe('reconciliation', () => {
  it('reports the workflows refused as unknown since its previous report', async () => {
    const input = forgedWithdrawal();
    await ctx.temporal.workflow.execute(cryptoWithdrawalContract.workflowType, {
      taskQueue: testStack().taskQueue,
      workflowId: cryptoWithdrawalContract.workflowId(input.withdrawalId),
      args: [input],
    });
    await ctx.temporal.workflow
      .execute('reconciliationWorkflow', {
        taskQueue: testStack().taskQueue,
        workflowId: `reconciliation-door-${randomUUID()}`,
        args: [{ stuckAfterMs: 24 * 60 * 60 * 1000 }],
      })
      // Findings fail the run; the report is stored first.
      .catch((error: unknown) => expect(error).toBeInstanceOf(WorkflowFailedError));
    // This run's report, or one another test file's run wrote after the refusal: either names it.
    const rows = await ctx.orm.em
      .fork()
      .getConnection()
      .execute<Array<{ ok: boolean }>>(
        `select r.ok from reconciliation_report r join refused_operation f on f.operation_id = ?
          where r.created_at >= f.refused_at and r.report->'refusedUnknownOperations' @> ?::jsonb`,
        [input.withdrawalId, JSON.stringify([{ operation_id: input.withdrawalId }])],
      );
    expect(rows.length).toBeGreaterThanOrEqual(1);
    expect(rows.every((row) => !row.ok)).toBe(true);
  });
});

describe("a worker that is not ours, holding the payload key, scheduling the service's activities", () => {
  const rogueQueue = `rogue-${randomUUID()}`;
  let rogueConnection: NativeConnection;
  let rogueWorker: Worker;
  let rogueRun: Promise<void>;

  beforeAll(async () => {
    rogueConnection = await NativeConnection.connect({ address: testStack().temporalAddress });
    rogueWorker = await Worker.create({
      connection: rogueConnection,
      namespace: testStack().namespace,
      taskQueue: rogueQueue,
      workflowsPath: path.join(__dirname, 'fixtures', 'rogue.workflows.ts'),
      dataConverter: testDataConverter(),
    });
    rogueRun = rogueWorker.run();
  }, 60_000);

  afterAll(async () => {
    rogueWorker?.shutdown();
    await rogueRun;
    await rogueConnection?.close();
  });

  /** Runs one of the service's activities from a rogue workflow; the failure it ended with. */
  async function rogueStep(workflowType: string, workflowId: string, activityType: string, args: unknown[]): Promise<ApplicationFailure> {
    const failure = await ctx.temporal.workflow
      .execute(workflowType, { taskQueue: rogueQueue, workflowId, args: [testStack().taskQueue, activityType, args] })
      .then(
        (result: unknown) => new Error(`the rogue step succeeded: ${JSON.stringify(result)}`),
        (error: unknown) => error,
      );
    if (!(failure instanceof WorkflowFailedError && failure.cause instanceof ActivityFailure)) throw failure;
    if (!(failure.cause.cause instanceof ApplicationFailure)) throw failure.cause;
    return failure.cause.cause;
  }

  it("cannot release, settle or reject another workflow's withdrawal: refused before the step runs", async () => {
    const partner = await createTestPartner(ctx.orm, { deposits: { eth: '5' } });
    const response = await ctx.api.request('POST', '/v1/partner/crypto-withdrawal', {
      apiKey: partner.apiKey,
      body: {
        currency: 'eth',
        amount: 1,
        walletAddress: newWalletAddress('eth'),
        name: 'Jan Kowalski',
        walletType: 'NON_CUSTODIAL',
        receiverType: 'NATURAL',
      },
    });
    expect(response.status).toBe(200);
    const withdrawalId = response.json.withdrawalId as string;
    const real = ctx.temporal.workflow.getHandle(cryptoWithdrawalContract.workflowId(withdrawalId));
    await eventually(async () => expect(await real.query(statusQuery)).toMatchObject({ status: 'IN_PROGRESS_TR_DATA' }));

    const released = await rogueStep('rogueStepWorkflow', `rogue-${randomUUID()}`, 'releaseWithdrawal', [withdrawalId, 'stolen', 'FAILED']);
    expect(released.type).toBe('unknown-operation');
    expect(released.message).toBe(
      `releaseWithdrawal for operation ${withdrawalId} runs only in workflow ${cryptoWithdrawalContract.workflowId(withdrawalId)} (cryptoWithdrawalWorkflow)`,
    );
    // Named like ours, under another operation's id: the same.
    const rejected = await rogueStep(
      cryptoWithdrawalContract.workflowType,
      cryptoWithdrawalContract.workflowId(randomUUID()),
      'rejectWithdrawal',
      [withdrawalId, 'stolen'],
    );
    expect(rejected.type).toBe('unknown-operation');
    // A step the service does not have.
    const unknown = await rogueStep('rogueStepWorkflow', `rogue-${randomUUID()}`, 'drainEverything', [withdrawalId]);
    expect(unknown.type).not.toBe('unknown-operation'); // Temporal's own: not registered on the worker.

    // The real withdrawal is untouched by all of it: it waits for its data, then fails at its deadline, for its own reason.
    const final = (await real.result()) as OperationProgress;
    expect(final).toMatchObject({ status: 'UNSUCCESSFUL', stage: 'FAILED' });
    expect(final.failureReason).not.toBe('stolen');
  });
});
