import { randomUUID } from 'node:crypto';
import { ApplicationFailure } from '@temporalio/common';
import { WorkflowFailedError } from '@temporalio/client';
import type { ReconciliationInput, ReconciliationResult } from '../../contracts';
import { SepaTransfer } from '../../db/entities/sepa-transfer.entity';
import type { SepaTransferStage } from '../../db/entities/sepa-transfer.entity';
import { postTransfer, reserveTransfer, voidTransfer } from '../../db/ledger/ledger';
import { findSystemAccount } from '../../db/ledger/accounts';
import { OperatorActionRefused } from '../../operations/operator/operator-refusal';
import { resolveOperation } from '../../operations/operator/resolve-operation';
import type { OperationStatus } from '../../core/operation-status';
import { createTestPartner } from '../support/fixtures';
import type { TestPartner } from '../support/fixtures';
import { testStack } from '../support/stack';
import { useTestApi } from '../support/use-test-api';

const ctx = useTestApi({ api: false });

interface Outcome {
  result: ReconciliationResult;
  /** Set when the run failed because its report has findings. */
  failure?: ApplicationFailure;
}

/**
 * Runs the workflow on the stack's worker. The database is shared with every test file running
 * at the same time, some of which leave findings on purpose: assert on what this test made.
 */
async function reconcile(input: ReconciliationInput): Promise<Outcome> {
  try {
    const result: ReconciliationResult = await ctx.temporal.workflow.execute('reconciliationWorkflow', {
      taskQueue: testStack().taskQueue,
      workflowId: `ledger-reconciliation-test-${randomUUID()}`,
      args: [input],
    });
    return { result };
  } catch (error) {
    if (
      error instanceof WorkflowFailedError &&
      error.cause instanceof ApplicationFailure &&
      error.cause.type === 'reconciliation-findings'
    ) {
      return { result: error.cause.details?.[0] as ReconciliationResult, failure: error.cause };
    }
    throw error;
  }
}

async function storedReport(reportId: string): Promise<{ ok: boolean; report: Record<string, Array<Record<string, unknown>>> }> {
  const rows = await ctx.orm.em.fork().getConnection().execute(`select ok, report from reconciliation_report where id = ?`, [reportId]);
  expect(rows).toHaveLength(1);
  return rows[0] as { ok: boolean; report: Record<string, Array<Record<string, unknown>>> };
}

const idsIn = (rows: Array<Record<string, unknown>> | undefined, field = 'id') => (rows ?? []).map((row) => row[field]);

/** A SEPA transfer written by hand (no workflow ever ran for it) with its funds held since `at`. */
async function heldSepaTransfer(
  partner: TestPartner,
  at: Date,
  state: { status: OperationStatus; stage: SepaTransferStage; bankReference?: string },
): Promise<string> {
  const id = randomUUID();
  await ctx.orm.em.fork().transactional(async (em) => {
    const clearing = await findSystemAccount(em, 'SEPA_CLEARING', 'eur');
    await reserveTransfer(
      em,
      {
        transferId: id,
        kind: 'SEPA_TRANSFER',
        postings: [
          { accountId: partner.accounts.eur.id, amount: '-10' },
          { accountId: clearing.id, amount: '10' },
        ],
      },
      at,
    );
    em.create(SepaTransfer, {
      id,
      partnerId: partner.partnerId,
      currency: 'eur',
      amount: '10',
      receiverType: 'NATURAL',
      receiverFirstName: 'Marie',
      receiverLastName: 'Curie',
      companyName: null,
      destinationIban: 'DE89370400440532013000',
      transferTitle: 'reconciliation test',
      status: state.status,
      stage: state.stage,
      messageId: null,
      bankReference: state.bankReference ?? null,
      failureReason: null,
      handedOffAt: state.bankReference ? at : null,
      externalRejection: null,
      cancelRequestedAt: null,
      createdAt: at,
      updatedAt: at,
    });
  });
  return id;
}

const workflowGone = async () => ({ workflowId: 'none', status: 'NOT_FOUND' });

describe('reconciliation workflow', () => {
  it('runs on the worker through the real Temporal server, finds the books sound and stores a report', async () => {
    await createTestPartner(ctx.orm, { deposits: { eur: '50', btc: '1' } });
    const { result, failure } = await reconcile({ stuckAfterMs: 24 * 60 * 60 * 1000 });
    expect(result).toMatchObject({ ledgerSound: true, unbalancedTransfers: 0, balanceMismatches: 0, overdrawnAccounts: 0 });
    // Other test files may leave operations for an operator to find; then the run fails, visibly.
    expect(result.ok).toBe(failure === undefined);
    if (failure) expect(failure.nonRetryable).toBe(true);
    expect((await storedReport(result.reportId)).ok).toBe(result.ok);
  });

  it('reports a cached balance that no longer matches its postings and fails the run, after storing the report', async () => {
    const partner = await createTestPartner(ctx.orm, { deposits: { ltc: '5' } });
    const connectionToDb = ctx.orm.em.fork().getConnection();
    // Simulate corruption by hand, then put it back so the suite's final ledger check stays meaningful.
    await connectionToDb.execute(`update account set posted_amount = posted_amount + 1 where id = ?`, [partner.accounts.ltc.id]);
    try {
      const { result, failure } = await reconcile({ stuckAfterMs: 60_000 });
      expect(failure).toBeDefined();
      expect(failure!.nonRetryable).toBe(true);
      expect(failure!.message).toContain(`reconciliation report ${result.reportId}`);
      expect(failure!.message).toMatch(/\d+ cached balances off their postings/);
      expect(result).toMatchObject({ ok: false, ledgerSound: false });
      expect(result.balanceMismatches).toBeGreaterThanOrEqual(1);
      const stored = await storedReport(result.reportId);
      expect(stored.ok).toBe(false);
      expect(idsIn(stored.report.mismatches, 'account_id')).toContain(partner.accounts.ltc.id);
    } finally {
      await connectionToDb.execute(`update account set posted_amount = posted_amount - 1 where id = ?`, [partner.accounts.ltc.id]);
    }
  });

  it('compares business records with the ledger: holds without a workflow or an operation, final operations not voided or posted', async () => {
    const partner = await createTestPartner(ctx.orm, { deposits: { eur: '100' } });
    const twoMinutesAgo = new Date(Date.now() - 2 * 60_000);
    const noWorkflow = await heldSepaTransfer(partner, twoMinutesAgo, { status: 'IN_PROGRESS', stage: 'RESERVED' });
    const handedOff = await heldSepaTransfer(partner, twoMinutesAgo, {
      status: 'IN_PROGRESS',
      stage: 'SUBMITTED',
      bankReference: `BANK-${randomUUID()}`,
    });
    const fresh = await heldSepaTransfer(partner, new Date(), { status: 'IN_PROGRESS', stage: 'RESERVED' });
    const failedButHeld = await heldSepaTransfer(partner, twoMinutesAgo, { status: 'UNSUCCESSFUL', stage: 'REJECTED' });
    const settledButHeld = await heldSepaTransfer(partner, twoMinutesAgo, { status: 'SUCCESSFUL', stage: 'SETTLED' });
    const orphan = randomUUID();
    // Money moved by a direct ledger call, as whoever may execute ledger_open could: a deposit without its deposit row.
    const minted = randomUUID();
    await ctx.orm.em.fork().transactional(async (em) => {
      const clearing = await findSystemAccount(em, 'SEPA_CLEARING', 'eur');
      await reserveTransfer(
        em,
        {
          transferId: orphan,
          kind: 'SEPA_TRANSFER',
          postings: [
            { accountId: partner.accounts.eur.id, amount: '-1' },
            { accountId: clearing.id, amount: '1' },
          ],
        },
        twoMinutesAgo,
      );
      await reserveTransfer(
        em,
        {
          transferId: minted,
          kind: 'DEPOSIT',
          postings: [
            { accountId: clearing.id, amount: '-1000' },
            { accountId: partner.accounts.eur.id, amount: '1000' },
          ],
        },
        twoMinutesAgo,
      );
      await postTransfer(em, minted, twoMinutesAgo);
    });
    let reconciled = false;
    try {
      const { result, failure } = await reconcile({ stuckAfterMs: 60_000, maxHeldTransfersChecked: 100_000 });
      expect(failure?.type).toBe('reconciliation-findings');
      expect(failure!.message).toContain(result.reportId);
      expect(failure!.message).toMatch(/\d+ holds whose workflow is closed or gone/);
      expect(result.heldWithoutRunningWorkflow).toBeGreaterThanOrEqual(2);
      expect(result.heldTransfersChecked).toBeGreaterThanOrEqual(2);

      const { report } = await storedReport(result.reportId);
      const withoutWorkflow = report.heldWithoutRunningWorkflow!;
      expect(withoutWorkflow).toEqual(
        expect.arrayContaining([
          expect.objectContaining({
            transfer_id: noWorkflow,
            operation: 'sepa-transfer',
            workflow_id: `sepa-transfer-${noWorkflow}`,
            workflow_status: 'NOT_FOUND',
          }),
          expect.objectContaining({ transfer_id: handedOff, workflow_status: 'NOT_FOUND' }),
        ]),
      );
      // Younger than a minute: its workflow may still be starting, so it is not checked yet.
      expect(idsIn(withoutWorkflow, 'transfer_id')).not.toContain(fresh);
      expect(idsIn(report.stuck)).toEqual(expect.arrayContaining([noWorkflow, handedOff]));
      expect(report.unsuccessfulNotVoided).toEqual(
        expect.arrayContaining([expect.objectContaining({ id: failedButHeld, transfer_state: 'PENDING' })]),
      );
      expect(report.successfulNotPosted).toEqual(
        expect.arrayContaining([expect.objectContaining({ id: settledButHeld, transfer_state: 'PENDING' })]),
      );
      expect(report.holdsWithoutOperation).toEqual(
        expect.arrayContaining([expect.objectContaining({ transfer_id: orphan, operation: null })]),
      );
      // The categories do not overlap: a final operation's hold is not also a hold without an operation.
      expect(idsIn(report.holdsWithoutOperation, 'transfer_id')).not.toContain(failedButHeld);
      // A transfer without the business record of its kind breaks the ledger's invariants; the holds of operations do not.
      // Other test files post ledger transfers directly too: this one is among what is found.
      expect(report.transfersWithoutRecord).toContainEqual({ transfer_id: minted, kind: 'DEPOSIT', state: 'POSTED' });
      expect(result.transfersWithoutRecord).toBeGreaterThanOrEqual(1);
      expect(failure!.message).toMatch(/\d+ ledger transfers? without the business record of their kind/);
      reconciled = true;
    } finally {
      // The minted deposit gets the record it lacked (postings stay), so later runs find nothing.
      await ctx.orm.em
        .fork()
        .getConnection()
        .execute(`insert into deposit (id, partner_id, account_id, currency, amount, type) values (?, ?, ?, 'eur', 1000, 'sepaDeposit')`, [
          minted,
          partner.partnerId,
          partner.accounts.eur.id,
        ]);
      // Close everything this test opened, so no hold is left behind.
      await ctx.orm.em.fork().transactional(async (em) => {
        const now = new Date();
        await voidTransfer(em, failedButHeld, now);
        await postTransfer(em, settledButHeld, now);
        await voidTransfer(em, orphan, now);
      });
      for (const id of [noWorkflow, fresh]) {
        await ctx.orm.em
          .fork()
          .transactional((em) =>
            resolveOperation(
              em,
              { operationId: id, action: 'release', reason: 'test fixture', actor: 'reconciliation test', osUser: 'jest' },
              new Date(),
              workflowGone,
            ),
          );
      }
      if (!reconciled) {
        await ctx.orm.em
          .fork()
          .transactional((em) =>
            resolveOperation(
              em,
              { operationId: handedOff, action: 'settle', reason: 'test cleanup', actor: 'reconciliation test', osUser: 'jest' },
              new Date(),
              workflowGone,
            ),
          );
      }
    }

    // The service refuses to release a handed-off transfer, and settles it.
    const release = ctx.orm.em
      .fork()
      .transactional((em) =>
        resolveOperation(
          em,
          { operationId: handedOff, action: 'release', reason: 'test', actor: 'reconciliation test', osUser: 'jest' },
          new Date(),
          workflowGone,
        ),
      );
    await expect(release).rejects.toThrow(OperatorActionRefused);
    await expect(release).rejects.toMatchObject({ reason: 'handed-off' });
    const settled = await ctx.orm.em.fork().transactional((em) =>
      resolveOperation(
        em,
        {
          operationId: handedOff,
          action: 'settle',
          reason: 'bank statement shows it paid',
          actor: 'reconciliation test',
          osUser: 'jest',
        },
        new Date(),
        workflowGone,
      ),
    );
    expect(settled).toMatchObject({ status: 'SUCCESSFUL', stage: 'SETTLED', ledgerTransferState: 'POSTED', actor: 'reconciliation test' });
    const released = await ctx.orm.em
      .fork()
      .getConnection()
      .execute(
        `select s.status, s.stage, s.failure_reason, t.state from sepa_transfer s join ledger_transfer t on t.id = s.id where s.id = ?`,
        [noWorkflow],
      );
    expect(released).toEqual([{ status: 'UNSUCCESSFUL', stage: 'FAILED', failure_reason: 'test fixture', state: 'VOIDED' }]);
    const audit = await ctx.orm.em
      .fork()
      .getConnection()
      .execute(`select action, actor, reason, operation_type from operator_action where operation_id = ? order by created_at`, [handedOff]);
    expect(audit).toEqual([
      { action: 'settle', actor: 'reconciliation test', reason: 'bank statement shows it paid', operation_type: 'sepa-transfer' },
    ]);
  });
});
