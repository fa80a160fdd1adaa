import { randomUUID } from 'node:crypto';
import { webhookDispatcherContract } from '../../contracts';
import type { WebhookDeliveryRoundResult, WebhookDispatcherInput } from '../../contracts';
import { eventually } from '../support/eventually';
import { recordHistory } from '../support/history-recorder';
import { mockActivities, stepsInHistory, useWorkflowTestEnvironment } from '../support/workflow-environment';

/** The webhook dispatcher on its own, its delivery round mocked: rounds, then continue-as-new with the same input. */

const env = useWorkflowTestEnvironment();

const ROUND: WebhookDeliveryRoundResult = { delivered: 1, failedAttempts: 0, givenUp: 0, interrupted: false };

describe('webhook dispatcher workflow', () => {
  it('runs its rounds, then continues as new with the same input', async () => {
    const activities = mockActivities({ deliverWebhookEvents: () => ROUND });
    // Not the default round length: the next run's round shows the input was carried over.
    const input: WebhookDispatcherInput = { roundsPerRun: 1, roundMs: 1_000 };
    await env.withWorker(activities, async (run) => {
      // The next run's round waits until the test is over (the run is then terminated), so the chain does not spin.
      const nextRun = run.gate();
      activities.deliverWebhookEvents.mockResolvedValueOnce(ROUND).mockImplementation(async () => {
        await nextRun.wait();
        return ROUND;
      });
      // Not the dispatcher's fixed id: the stack's own dispatcher runs under it.
      const handle = await run.start(webhookDispatcherContract.workflowType, {
        workflowId: `webhook-dispatcher-test-${randomUUID()}`,
        args: [input],
      });
      await eventually(async () => expect(activities.deliverWebhookEvents).toHaveBeenCalledTimes(2));
      const firstRun = env.client.workflow.getHandle(handle.workflowId, handle.firstExecutionRunId);
      expect((await firstRun.describe()).status.name).toBe('CONTINUED_AS_NEW');
      expect((await stepsInHistory(firstRun)).activities).toEqual(['deliverWebhookEvents']);
      expect((await handle.describe()).status.name).toBe('RUNNING');
      await recordHistory(firstRun, 'one-round-then-continue-as-new');
    });
    expect(activities.deliverWebhookEvents.mock.calls).toEqual([[{ roundMs: 1_000 }], [{ roundMs: 1_000 }]]);
  });
});
