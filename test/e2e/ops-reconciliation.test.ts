import { randomUUID } from 'node:crypto';
import { WorkflowFailedError } from '@temporalio/client';
import { ApplicationFailure } from '@temporalio/common';
import { RECONCILIATION_FINDINGS, cryptoWithdrawalContract, reconciliationContract } from '../../contracts';
import type { ReconciliationResult } from '../../contracts';
import { OPERATION_STAGE } from '../../core/search-attributes';
import { newWalletAddress } from '../../db/services/account-identifiers';
import { eventually } from '../support/eventually';
import { createTestPartner } from '../support/fixtures';
import { runOpsCli } from '../support/ops-cli';
import { testStack } from '../support/stack';
import { useTestApi } from '../support/use-test-api';

/**
 * Reconciliation people notice: a report with findings fails its run (red in the Schedule's
 * recent runs), says what it found in the failure and the run's current details, and
 * `npm run ops -- reconciliation latest` prints the newest report.
 */
const ctx = useTestApi();

const ops = (args: string[]) =>
  runOpsCli(args, { TEMPORAL_ADDRESS: testStack().temporalAddress, TEMPORAL_NAMESPACE: testStack().namespace });

/** A withdrawal whose workflow an operator terminated while it held the funds: reconciliation's job to notice. */
async function holdWithoutItsWorkflow(): Promise<{ withdrawalId: string; beneficiary: string }> {
  const partner = await createTestPartner(ctx.orm, { deposits: { eth: '2' } });
  const beneficiary = 'Grace Hopper';
  // 3000 EUR to a non-custodial wallet: it waits for travel-rule data, funds held.
  const response = await ctx.api.request('POST', '/v1/partner/crypto-withdrawal', {
    apiKey: partner.apiKey,
    body: {
      currency: 'eth',
      amount: 1,
      walletAddress: newWalletAddress('eth'),
      name: beneficiary,
      walletType: 'NON_CUSTODIAL',
      receiverType: 'NATURAL',
    },
  });
  expect(response.status).toBe(200);
  const { withdrawalId } = response.json;
  const handle = ctx.temporal.workflow.getHandle(cryptoWithdrawalContract.workflowId(withdrawalId));
  await eventually(async () =>
    expect((await handle.describe()).typedSearchAttributes.get(OPERATION_STAGE)).toBe('AWAITING_TRAVEL_RULE_DATA'),
  );
  await handle.terminate('test: leave a hold without its workflow');
  return { withdrawalId, beneficiary };
}

async function reconcile(workflowId: string): Promise<{ result: ReconciliationResult; failure?: ApplicationFailure }> {
  try {
    const result: ReconciliationResult = await ctx.temporal.workflow.execute(reconciliationContract.workflowType, {
      taskQueue: testStack().taskQueue,
      workflowId,
      // Every hold is old enough to check: the one just made too.
      args: [{ stuckAfterMs: 24 * 60 * 60 * 1000, heldAfterMs: 0, maxHeldTransfersChecked: 100_000 }],
    });
    return { result };
  } catch (error) {
    if (error instanceof WorkflowFailedError && error.cause instanceof ApplicationFailure && error.cause.type === RECONCILIATION_FINDINGS) {
      return { result: error.cause.details?.[0] as ReconciliationResult, failure: error.cause };
    }
    throw error;
  }
}

describe('reconciliation, as operators see it', () => {
  it('a report with findings fails its run with what it found, shows it in the current details, and `reconciliation latest` prints it', async () => {
    const { withdrawalId, beneficiary } = await holdWithoutItsWorkflow();
    try {
      const workflowId = reconciliationContract.workflowId(`test-${randomUUID()}`);
      const { result, failure } = await reconcile(workflowId);

      expect(failure).toBeDefined();
      expect(failure!.nonRetryable).toBe(true);
      expect(result.ok).toBe(false);
      expect(result.heldWithoutRunningWorkflow).toBeGreaterThanOrEqual(1);
      const counts = Object.entries(result).filter(
        ([key, value]) => typeof value === 'number' && key !== 'heldTransfersChecked' && key !== 'heldTransfersTotal',
      );
      const problems = counts.reduce((sum, [, value]) => sum + Number(value), 0);
      expect(failure!.message).toMatch(
        new RegExp(
          `^reconciliation found ${problems} problems?: .*\\d+ holds whose workflow is closed or gone.* \\(reconciliation report ${result.reportId}\\)$`,
        ),
      );
      expect(failure!.message).not.toContain(beneficiary);

      // The run's page: its current details say the same, with where to read the report.
      const { currentDetails } = await ctx.temporal.workflow
        .getHandle(workflowId)
        .query<{ currentDetails?: string }>('__temporal_workflow_metadata');
      expect(currentDetails).toContain(`**reconciliation found ${problems} problem`);
      expect(currentDetails).toContain(`\`${result.reportId}\``);
      expect(currentDetails).toContain('npm run ops -- reconciliation latest');

      // Other test files may reconcile meanwhile: the newest report is this one or a later one. A later
      // one need not find this hold (a run checks the 500 oldest holds, and other files leave many), so
      // what `latest` prints is compared in detail only when it is this run's report.
      const latest = await ops(['reconciliation', 'latest']);
      expect(latest.code).toBe(0);
      const stored = (
        await ctx.orm.em
          .fork()
          .getConnection()
          .execute(`select (extract(epoch from created_at) * 1000)::bigint::text as ms from reconciliation_report where id = ?`, [
            result.reportId,
          ])
      )[0] as { ms: string };
      expect(Date.parse(latest.output.createdAt)).toBeGreaterThanOrEqual(Number(stored.ms));
      if (latest.output.reportId !== result.reportId) return;
      expect(latest.output).toMatchObject({ ok: false, ledgerSound: true });
      expect(latest.output.findings.heldWithoutRunningWorkflow).toBeGreaterThanOrEqual(1);
      expect(latest.output.problems).toBe(
        Object.values(latest.output.findings as Record<string, number>).reduce((sum, count) => sum + count, 0),
      );
      expect(latest.output.report.heldWithoutRunningWorkflow).toEqual(
        expect.arrayContaining([
          expect.objectContaining({ transfer_id: withdrawalId, workflow_status: 'TERMINATED', stage: 'AWAITING_TRAVEL_RULE_DATA' }),
        ]),
      );
      expect(JSON.stringify(latest.output)).not.toContain(beneficiary);
    } finally {
      // What an operator does next: the workflow is gone, so release the hold by hand.
      const resolved = await ops(['operation', 'resolve', withdrawalId, '--release', '--reason', 'test cleanup', '--operator', 'test']);
      expect(resolved.code).toBe(0);
    }
  });

  it('`reconciliation latest` refuses arguments it does not know', async () => {
    const refused = await ops(['reconciliation', 'latest', 'now']);
    expect(refused.code).toBe(2);
    expect(refused.output).toMatchObject({ error: 'invalid-request', message: 'unexpected argument "now"' });
    expect(refused.output.usage).toContain('reconciliation latest');
  });
});
