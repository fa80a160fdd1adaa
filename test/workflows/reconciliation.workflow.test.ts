import { randomUUID } from 'node:crypto';
import { WorkflowFailedError } from '@temporalio/client';
import { ApplicationFailure } from '@temporalio/common';
import { RECONCILIATION_FINDINGS, reconciliationContract } from '../../contracts';
import type { ReconciliationInput, ReconciliationResult } from '../../contracts';
import { recordHistory } from '../support/history-recorder';
import { mockActivities, stepsInHistory, useWorkflowTestEnvironment } from '../support/workflow-environment';

/** The reconciliation workflow on its own, its one activity mocked: a clean report, and one with findings. */

const env = useWorkflowTestEnvironment();

const INPUT: ReconciliationInput = { stuckAfterMs: 3_600_000 };

function report(findings: Partial<ReconciliationResult> = {}): ReconciliationResult {
  const result: ReconciliationResult = {
    reportId: randomUUID(),
    ok: true,
    ledgerSound: true,
    unbalancedTransfers: 0,
    balanceMismatches: 0,
    overdrawnAccounts: 0,
    stuckOperations: 0,
    heldWithoutRunningWorkflow: 0,
    unsuccessfulNotVoided: 0,
    successfulNotPosted: 0,
    openWithoutHold: 0,
    holdsWithoutOperation: 0,
    heldTransfersChecked: 2,
    heldTransfersTotal: 2,
    ...findings,
  };
  return { ...result, ok: Object.keys(findings).length === 0 };
}

async function runReconciliation(result: ReconciliationResult) {
  const activities = mockActivities({ reconcileLedger: () => result });
  return env.withWorker(activities, async (run) => {
    const handle = await run.start(reconciliationContract.workflowType, {
      workflowId: reconciliationContract.workflowId(randomUUID()),
      args: [INPUT],
    });
    const outcome: { result?: unknown; error?: unknown } = await handle.result().then(
      (value: unknown) => ({ result: value }),
      (error: unknown) => ({ error }),
    );
    return { ...outcome, handle, activities, status: (await handle.describe()).status.name, steps: await stepsInHistory(handle) };
  });
}

describe('reconciliation workflow', () => {
  it('with a clean report completes with the report as its result, in one activity', async () => {
    const clean = report();
    const outcome = await runReconciliation(clean);
    expect(outcome).toMatchObject({ status: 'COMPLETED', result: clean });
    expect(outcome.activities.reconcileLedger).toHaveBeenCalledWith(INPUT);
    expect(outcome.steps.activities).toEqual(['reconcileLedger']);
    await recordHistory(outcome.handle, 'clean');
  });

  it('with findings fails the run (reconciliation-findings, not retried): counts and the report id in the message, the report in the details', async () => {
    const findings = report({ ledgerSound: false, balanceMismatches: 2, stuckOperations: 1 });
    const outcome = await runReconciliation(findings);
    expect(outcome.status).toBe('FAILED');
    expect(outcome.error).toBeInstanceOf(WorkflowFailedError);
    const cause = (outcome.error as WorkflowFailedError).cause;
    expect(cause).toBeInstanceOf(ApplicationFailure);
    expect(cause).toMatchObject({
      type: RECONCILIATION_FINDINGS,
      nonRetryable: true,
      message: `reconciliation found 3 problems: 2 cached balances off their postings, 1 operations in flight too long (reconciliation report ${findings.reportId})`,
      details: [findings],
    });
    // Failing is the workflow's decision, not a failed activity: the report was stored once.
    expect(outcome.activities.reconcileLedger).toHaveBeenCalledTimes(1);
    await recordHistory(outcome.handle, 'findings');
  });
});
