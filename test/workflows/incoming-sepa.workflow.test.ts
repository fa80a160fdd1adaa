import { randomUUID } from 'node:crypto';
import { ApplicationFailure } from '@temporalio/common';
import { incomingSepaContract } from '../../contracts';
import type { IncomingSepaIngestResult, SepaReturnsResult } from '../../contracts';
import { recordHistory } from '../support/history-recorder';
import { mockActivities, stepsInHistory, useWorkflowTestEnvironment } from '../support/workflow-environment';

/** The incoming-SEPA workflow on its own, its two activities mocked: the ingest, then the returns. */

const env = useWorkflowTestEnvironment();

const INGESTED: IncomingSepaIngestResult = {
  documents: 3,
  refusedDocuments: 1,
  credited: 2,
  unmatched: 1,
  duplicates: 1,
  conflicts: 0,
  skippedEntries: 1,
};
const RETURNS: SepaReturnsResult = { returnsSubmitted: 1, returnsSettled: 1, returnsRejected: 0, returnsFailed: 0 };

async function runIncomingSepa(activities: ReturnType<typeof mockActivities<'ingestBankNotifications' | 'advanceSepaReturns'>>) {
  return env.withWorker(activities, async (run) => {
    const handle = await run.start(incomingSepaContract.workflowType, {
      workflowId: incomingSepaContract.workflowId(randomUUID()),
      args: [],
    });
    const outcome: { result?: unknown; error?: unknown } = await handle.result().then(
      (value: unknown) => ({ result: value }),
      (error: unknown) => ({ error }),
    );
    return { ...outcome, handle, status: (await handle.describe()).status.name, steps: await stepsInHistory(handle) };
  });
}

describe('incoming SEPA workflow', () => {
  it('reads the notifications, then moves the returns on, and answers what both did', async () => {
    const activities = mockActivities({ ingestBankNotifications: () => INGESTED, advanceSepaReturns: () => RETURNS });
    const outcome = await runIncomingSepa(activities);
    expect(outcome).toMatchObject({ status: 'COMPLETED', result: { ...INGESTED, ...RETURNS } });
    expect(outcome.steps.activities).toEqual(['ingestBankNotifications', 'advanceSepaReturns']);
    await recordHistory(outcome.handle, 'ingested-and-returns-moved');
  });

  it('retries a bank that is down, with backoff, and goes on once it answers', async () => {
    let calls = 0;
    const activities = mockActivities({
      ingestBankNotifications: () => {
        calls += 1;
        if (calls === 1) throw ApplicationFailure.retryable('connect ECONNREFUSED (the bank)', 'Error');
        return INGESTED;
      },
      advanceSepaReturns: () => RETURNS,
    });
    const outcome = await runIncomingSepa(activities);
    expect(outcome.status).toBe('COMPLETED');
    expect(activities.ingestBankNotifications).toHaveBeenCalledTimes(2);
    expect(outcome.steps.failedAttempts).toBe(1);
  });
});
