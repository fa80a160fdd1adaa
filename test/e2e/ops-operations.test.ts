import { randomUUID } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { WorkflowFailedError } from '@temporalio/client';
import { ApplicationFailure } from '@temporalio/common';
import type { ReconciliationResult } from '../../contracts';
import { Decimal } from '../../core/money';
import { newWalletAddress } from '../../db/services/account-identifiers';
import { resolveOperation } from '../../operations/operator/resolve-operation';
import { cryptoWithdrawalContract, statusQuery } from '../../contracts';
import { travelRuleCompletionDigest } from '../../db/services/travel-rule-completion-digest';
import { eventually } from '../support/eventually';
import { createTestPartner } from '../support/fixtures';
import type { TestPartner } from '../support/fixtures';
import { startTestApi } from '../support/http';
import type { TestApi } from '../support/http';
import { balancesOf } from '../support/operations';
import { runOpsCli } from '../support/ops-cli';
import { testStack } from '../support/stack';
import { startTestWorker } from '../support/test-worker';
import { useTestApi } from '../support/use-test-api';

/** `npm run ops -- …` against the run's Postgres and Temporal. */
const ops = (args: string[], env: Record<string, string> = {}) =>
  runOpsCli(args, { TEMPORAL_ADDRESS: testStack().temporalAddress, TEMPORAL_NAMESPACE: testStack().namespace, ...env });

/**
 * A worker of our own, on a task queue only this file uses, whose withdrawals wait long enough
 * for us to act: ten minutes for travel-rule data, ten minutes for the chain to confirm.
 */
const taskQueue = `ops-operations-${randomUUID()}`;
const scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'ops-operations-'));

const ctx = useTestApi();
let slowApi: TestApi;
/** Withdrawals this file opened: none may keep a hold after it (the suite's ledger check enforces it). */
const opened: string[] = [];

beforeAll(async () => {
  ctx.defer(() => fs.rmSync(scratch, { recursive: true, force: true }));
  const worker = await startTestWorker({ taskQueue, travelRuleDeadlineMs: 10 * 60_000, chainConfirmationDelayMs: 10 * 60_000 });
  ctx.defer(() => worker.stop());
  slowApi = await startTestApi({ taskQueue });
  ctx.defer(() => slowApi.stop());
  // Runs first: a failed test may leave a withdrawal open; stop its workflow and close it, so
  // the suite's final ledger check reports the failure here and not as a leaked hold.
  ctx.defer(async () => {
    for (const id of opened) {
      const [row] = await ctx.orm.em
        .fork()
        .getConnection()
        .execute(`select status, transaction_hash from crypto_withdrawal where id = ?`, [id]);
      if (!row || !['IN_PROGRESS', 'IN_PROGRESS_TR_DATA'].includes(row.status)) continue;
      await ctx.temporal.workflow
        .getHandle(cryptoWithdrawalContract.workflowId(id))
        .terminate('test cleanup')
        .catch(() => undefined);
      await ctx.orm.em
        .fork()
        .transactional((em) =>
          resolveOperation(
            em,
            {
              operationId: id,
              action: row.transaction_hash ? 'settle' : 'release',
              reason: 'test cleanup',
              actor: 'ops-operations test',
              osUser: 'jest',
            },
            new Date(),
            async () => ({}),
          ),
        )
        .catch(() => undefined);
    }
  });
});

async function withdraw(through: TestApi, partner: TestPartner, body: Record<string, unknown>): Promise<string> {
  const response = await through.request('POST', '/v1/partner/crypto-withdrawal', {
    apiKey: partner.apiKey,
    body: { currency: 'eth', walletAddress: newWalletAddress('eth'), name: 'Jan Kowalski', receiverType: 'NATURAL', ...body },
  });
  expect(response.status).toBe(200);
  opened.push(response.json.withdrawalId);
  return response.json.withdrawalId as string;
}

async function withdrawalRow(
  id: string,
): Promise<{ status: string; stage: string; transaction_hash: string | null; transfer_state: string }> {
  const [row] = await ctx.orm.em
    .fork()
    .getConnection()
    .execute(
      `select w.status, w.stage, w.transaction_hash, t.state as transfer_state from crypto_withdrawal w join ledger_transfer t on t.id = w.id where w.id = ?`,
      [id],
    );
  return row as { status: string; stage: string; transaction_hash: string | null; transfer_state: string };
}

async function reachesStatus(id: string, status: string, timeoutMs = 30_000) {
  return eventually(
    async () => {
      const row = await withdrawalRow(id);
      expect(row.status).toBe(status);
      return row;
    },
    { timeoutMs },
  );
}

async function terminate(id: string): Promise<void> {
  const handle = ctx.temporal.workflow.getHandle(cryptoWithdrawalContract.workflowId(id));
  await handle.terminate('ops-operations test: an operator terminated it');
  expect((await handle.describe()).status.name).toBe('TERMINATED');
}

/** Runs reconciliation on the stack's worker; its findings fail the run, whose details are the result. */
async function reconcile(): Promise<{
  result: ReconciliationResult;
  failure?: ApplicationFailure;
  report: Record<string, Array<Record<string, unknown>>>;
}> {
  let result: ReconciliationResult;
  let failure: ApplicationFailure | undefined;
  try {
    result = await ctx.temporal.workflow.execute('reconciliationWorkflow', {
      taskQueue: testStack().taskQueue,
      workflowId: `ledger-reconciliation-ops-test-${randomUUID()}`,
      args: [{ stuckAfterMs: 24 * 60 * 60 * 1000, heldAfterMs: 0, maxHeldTransfersChecked: 100_000 }],
    });
  } catch (error) {
    if (!(error instanceof WorkflowFailedError && error.cause instanceof ApplicationFailure)) throw error;
    failure = error.cause;
    result = failure.details?.[0] as ReconciliationResult;
  }
  const [row] = await ctx.orm.em.fork().getConnection().execute(`select report from reconciliation_report where id = ?`, [result.reportId]);
  return { result, failure, report: (row as { report: Record<string, Array<Record<string, unknown>>> }).report };
}

const writeJson = (name: string, value: unknown): string => {
  const file = path.join(scratch, name);
  fs.writeFileSync(file, JSON.stringify(value));
  return file;
};

const beneficiary = (primaryIdentifier: string) => ({
  beneficiaryPersons: [
    {
      naturalPerson: {
        name: { nameIdentifier: [{ primaryIdentifier, secondaryIdentifier: 'Jan', nameIdentifierType: 'LEGL' }] },
        countryOfResidence: 'DE',
      },
    },
  ],
});

describe('ops operation show', () => {
  it('prints a settled withdrawal with its posted transfer, postings as strings, and its completed workflow', async () => {
    const partner = await createTestPartner(ctx.orm, { deposits: { eth: '1' } });
    const id = await withdraw(ctx.api, partner, { amount: 0.01, walletType: 'CUSTODIAL' });
    await reachesStatus(id, 'SUCCESSFUL');
    const workflow = await eventually(async () => {
      const shown = await ops(['operation', 'show', id]);
      expect(shown.output.workflow.status).toBe('COMPLETED');
      return shown;
    });
    expect(workflow.code).toBe(0);
    const shown = workflow.output;
    expect(shown.type).toBe('crypto-withdrawal');
    expect(shown.operation).toMatchObject({
      id,
      partnerId: partner.partnerId,
      status: 'SUCCESSFUL',
      stage: 'SETTLED',
      handedOff: true,
      transactionHash: expect.any(String),
    });
    expect(shown.ledgerTransfer).toMatchObject({ id, kind: 'CRYPTO_WITHDRAWAL', state: 'POSTED', tombstone: false });
    const postings = shown.ledgerTransfer.postings as { accountId: string; currency: string; amount: string }[];
    expect(postings).toHaveLength(3);
    for (const posting of postings) expect(typeof posting.amount).toBe('string');
    expect(postings.reduce((sum, posting) => sum.plus(posting.amount), new Decimal(0)).isZero()).toBe(true);
    const partnerPosting = postings.find((posting) => posting.accountId === partner.accounts.eth.id);
    expect(new Decimal(partnerPosting!.amount).toFixed()).toBe('-0.0105');
    expect(shown.operatorActions).toEqual([]);
    expect(shown.workflow).toMatchObject({
      workflowId: cryptoWithdrawalContract.workflowId(id),
      found: true,
      type: 'cryptoWithdrawalWorkflow',
      runId: expect.any(String),
      startTime: expect.any(String),
      closeTime: expect.any(String),
      searchAttributes: expect.objectContaining({ PartnerId: partner.partnerId, OperationStatus: 'SUCCESSFUL' }),
    });

    const byWorkflowId = await ops(['operation', 'show', cryptoWithdrawalContract.workflowId(id)]);
    expect(byWorkflowId.output.operation.id).toBe(id);
  }, 120_000);

  it('says so when Temporal cannot be reached, exits 1 with not-found for an unknown id and 2 for a malformed one', async () => {
    const partner = await createTestPartner(ctx.orm, { deposits: { eth: '1' } });
    const id = await withdraw(ctx.api, partner, { amount: 0.01, walletType: 'CUSTODIAL' });
    await reachesStatus(id, 'SUCCESSFUL');
    const [unreachable, unknown, malformed] = await Promise.all([
      ops(['operation', 'show', id], { TEMPORAL_ADDRESS: '127.0.0.1:9' }),
      ops(['operation', 'show', randomUUID()]),
      ops(['operation', 'show', 'not-an-id']),
    ]);
    expect(unreachable.code).toBe(0);
    expect(unreachable.output.ledgerTransfer.state).toBe('POSTED');
    expect(unreachable.output.workflow).toMatchObject({
      found: false,
      reason: 'unreachable',
      message: expect.stringContaining('127.0.0.1:9'),
    });
    expect(unknown.code).toBe(1);
    expect(unknown.output).toMatchObject({ error: 'not-found', message: expect.any(String) });
    expect(malformed.code).toBe(2);
    expect(malformed.output).toMatchObject({
      error: 'invalid-request',
      message: expect.stringContaining('"not-an-id"'),
      usage: expect.any(String),
    });
  }, 120_000);
});

describe('ops operation resolve', () => {
  it('releases a terminated withdrawal that waited for travel-rule data: reported by reconciliation, audited, once', async () => {
    const partner = await createTestPartner(ctx.orm, { deposits: { eth: '2' } });
    // 0.5 eth × 3000 = EUR 1500 to a self-hosted wallet: waits for travel-rule data.
    const id = await withdraw(slowApi, partner, { amount: 0.5, walletType: 'NON_CUSTODIAL' });
    await reachesStatus(id, 'IN_PROGRESS_TR_DATA');

    const whileRunning = await ops(['operation', 'resolve', id, '--release', '--reason', 'partner asked']);
    expect(whileRunning).toMatchObject({
      code: 1,
      output: { error: 'refused', reason: 'workflow-running', message: expect.stringContaining('terminate') },
    });

    await terminate(id);
    expect(await withdrawalRow(id)).toMatchObject({ status: 'IN_PROGRESS_TR_DATA', transfer_state: 'PENDING' });
    expect((await balancesOf(ctx.api, partner)).eth).toBe('1.499500000000000000');
    const tooLate = await ops(['travel-rule', 'complete', '--withdrawal', id, '--completed-by', 'compliance@example.com']);
    expect(tooLate).toMatchObject({ code: 1, output: { error: 'workflow-not-running' } });

    const { result, failure, report } = await reconcile();
    expect(failure?.type).toBe('reconciliation-findings');
    expect(failure?.message).toContain(result.reportId);
    expect(report.heldWithoutRunningWorkflow).toEqual(
      expect.arrayContaining([expect.objectContaining({ transfer_id: id, operation: 'crypto-withdrawal', workflow_status: 'TERMINATED' })]),
    );

    const settle = await ops(['operation', 'resolve', id, '--settle', '--reason', 'sent by hand']);
    expect(settle).toMatchObject({ code: 1, output: { error: 'refused', reason: 'not-handed-off' } });
    const unreachable = await ops(['operation', 'resolve', id, '--release', '--reason', 'x'], { TEMPORAL_ADDRESS: '127.0.0.1:9' });
    expect(unreachable).toMatchObject({ code: 1, output: { error: 'refused', reason: 'temporal-unreachable' } });
    const neither = await ops(['operation', 'resolve', id, '--reason', 'x']);
    expect(neither).toMatchObject({ code: 2, output: { error: 'invalid-request', message: 'give exactly one of --release or --settle' } });

    const released = await ops([
      'operation',
      'resolve',
      cryptoWithdrawalContract.workflowId(id),
      '--release',
      '--reason',
      'terminated while waiting for travel-rule data',
      '--operator',
      'alice',
    ]);
    expect(released).toMatchObject({
      code: 0,
      output: {
        operationId: id,
        operationType: 'crypto-withdrawal',
        action: 'release',
        status: 'UNSUCCESSFUL',
        stage: 'FAILED',
        ledgerTransferState: 'VOIDED',
        actor: 'alice',
      },
    });
    expect((await balancesOf(ctx.api, partner)).eth).toBe('2.000000000000000000');
    const details = await ctx.api.request('GET', `/v1/crypto-withdrawal/details/${id}`, { apiKey: partner.apiKey });
    expect(details.json.status).toBe('UNSUCCESSFUL');

    const shown = (await ops(['operation', 'show', id])).output;
    expect(shown.ledgerTransfer.state).toBe('VOIDED');
    expect(shown.operation).toMatchObject({ status: 'UNSUCCESSFUL', failureReason: 'terminated while waiting for travel-rule data' });
    expect(shown.workflow).toMatchObject({ found: true, status: 'TERMINATED' });
    expect(shown.operatorActions).toEqual([
      expect.objectContaining({
        action: 'release',
        actor: 'alice',
        reason: 'terminated while waiting for travel-rule data',
        details: expect.objectContaining({ workflow: expect.objectContaining({ status: 'TERMINATED' }) }),
      }),
    ]);

    const again = await ops(['operation', 'resolve', id, '--release', '--reason', 'once more'], { OPS_OPERATOR: 'bob' });
    expect(again).toMatchObject({ code: 1, output: { error: 'refused', reason: 'not-open' } });
    expect((await balancesOf(ctx.api, partner)).eth).toBe('2.000000000000000000');
  }, 180_000);
});

describe('ops travel-rule complete', () => {
  it('refuses a bad completion (the withdrawal keeps waiting), takes a good one; once handed off, only settle closes it', async () => {
    const partner = await createTestPartner(ctx.orm, { deposits: { eth: '2' } });
    const id = await withdraw(slowApi, partner, { amount: 0.5, walletType: 'NON_CUSTODIAL' });
    await reachesStatus(id, 'IN_PROGRESS_TR_DATA');
    const handle = ctx.temporal.workflow.getHandle(cryptoWithdrawalContract.workflowId(id));

    const badJson = writeJson('bad-beneficiary.json', beneficiary('Kowal\u0000ski'));
    const bad = await ops([
      'travel-rule',
      'complete',
      '--withdrawal',
      id,
      '--completed-by',
      'compliance@example.com',
      '--beneficiary-json',
      badJson,
    ]);
    expect(bad).toMatchObject({
      code: 1,
      output: { error: 'invalid-request', message: expect.stringContaining('must not contain control characters') },
    });
    const notAnEmail = await ops(['travel-rule', 'complete', '--withdrawal', id, '--completed-by', 'somebody']);
    expect(notAnEmail).toMatchObject({ code: 1, output: { error: 'invalid-request', message: expect.stringContaining('completedBy') } });
    expect(await handle.query(statusQuery)).toMatchObject({ status: 'IN_PROGRESS_TR_DATA' });
    expect((await withdrawalRow(id)).status).toBe('IN_PROGRESS_TR_DATA');

    const goodJson = writeJson('good-beneficiary.json', beneficiary('Kowalski'));
    const good = await ops([
      'travel-rule',
      'complete',
      '--withdrawal',
      id,
      '--completed-by',
      'compliance@example.com',
      '--beneficiary-json',
      goodJson,
      '--operator',
      'dana',
      '--reason',
      'beneficiary VASP confirmed the name',
    ]);
    expect(good).toMatchObject({
      code: 0,
      output: { withdrawalId: id, workflowId: cryptoWithdrawalContract.workflowId(id), operatorActionId: expect.any(String) },
    });
    // One row, for the completion that was sent (none for the refused ones), written before the Update.
    const audit = await ctx.orm.em
      .fork()
      .getConnection()
      .execute(
        `select id, action, actor, os_user, reason, operation_type, partner_id, details from operator_action where operation_id = ?`,
        [id],
      );
    expect(audit).toEqual([
      {
        id: good.output.operatorActionId,
        action: 'travel-rule-complete',
        actor: 'dana',
        os_user: os.userInfo().username,
        reason: 'beneficiary VASP confirmed the name',
        operation_type: 'crypto-withdrawal',
        partner_id: partner.partnerId,
        details: {
          workflowId: cryptoWithdrawalContract.workflowId(id),
          completedBy: 'compliance@example.com',
          beneficiaryProvided: true,
          completionDigest: await travelRuleCompletionDigest(ctx.orm.em.fork(), {
            completedBy: 'compliance@example.com',
            beneficiary: beneficiary('Kowalski'),
          }),
        },
      },
    ]);
    // The Update named that row: the workflow received it with the completion.
    const [stored] = await ctx.orm.em
      .fork()
      .getConnection()
      .execute(`select travel_rule -> 'completion' ->> 'operatorActionId' as operator_action_id from crypto_withdrawal where id = ?`, [id]);
    expect(stored).toEqual({ operator_action_id: good.output.operatorActionId });

    // It proceeds to the chain, where our worker's confirmation takes ten minutes.
    const broadcast = await eventually(async () => {
      const row = await withdrawalRow(id);
      expect(row).toMatchObject({ status: 'IN_PROGRESS', stage: 'BROADCAST', transaction_hash: expect.any(String) });
      return row;
    });

    await terminate(id);
    const release = await ops(['operation', 'resolve', id, '--release', '--reason', 'chain is slow']);
    expect(release).toMatchObject({ code: 1, output: { error: 'refused', reason: 'handed-off' } });
    expect(await withdrawalRow(id)).toMatchObject({ status: 'IN_PROGRESS', transfer_state: 'PENDING' });

    const settled = await ops([
      'operation',
      'resolve',
      id,
      '--settle',
      '--reason',
      `confirmed on chain: ${broadcast.transaction_hash}`,
      '--operator',
      'carol',
    ]);
    expect(settled).toMatchObject({
      code: 0,
      output: { status: 'SUCCESSFUL', stage: 'SETTLED', ledgerTransferState: 'POSTED', actor: 'carol' },
    });
    expect((await balancesOf(ctx.api, partner)).eth).toBe('1.499500000000000000');
    const details = await ctx.api.request('GET', `/v1/crypto-withdrawal/details/${id}`, { apiKey: partner.apiKey });
    expect(details.json).toMatchObject({ status: 'SUCCESSFUL', transactionHash: broadcast.transaction_hash });
  }, 180_000);
});
