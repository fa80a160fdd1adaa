import { continueAsNew, proxyActivities, workflowInfo } from '@temporalio/workflow';
import type { Activities } from '../activities';
import { WEBHOOK_DISPATCH } from '../contracts';
import type { WebhookDispatcherInput, WebhookDispatcherWorkflow } from '../contracts';

/**
 * One round of deliveries, heartbeating (the outbox's claims keep two rounds from sending one event at once). Retried
 * without limit: an outage of Postgres pauses delivery, never stops it.
 */
const { deliverWebhookEvents } = proxyActivities<Activities>({
  // The round, then the deliveries under way at its end (10 s each at most) and their records.
  startToCloseTimeout: WEBHOOK_DISPATCH.roundMs + 60_000,
  heartbeatTimeout: WEBHOOK_DISPATCH.heartbeatTimeoutMs,
  retry: { initialInterval: '1 second', backoffCoefficient: 2, maximumInterval: '1 minute' },
  summary: 'deliver due webhook events',
});

/** Runs delivery rounds back to back, then continues as new so the history stays bounded. */
export async function webhookDispatcherWorkflow(input: WebhookDispatcherInput): Promise<void> {
  const rounds = Math.max(1, input.roundsPerRun ?? WEBHOOK_DISPATCH.roundsPerRun);
  const roundMs = Math.min(input.roundMs ?? WEBHOOK_DISPATCH.roundMs, WEBHOOK_DISPATCH.roundMs);
  for (let round = 0; round < rounds && !workflowInfo().continueAsNewSuggested; round += 1) {
    await deliverWebhookEvents({ roundMs });
  }
  await continueAsNew<WebhookDispatcherWorkflow>(input);
}
