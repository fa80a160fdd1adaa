import type { WorkflowContract } from './operation.contract';

/** One long-running workflow, started on boot, whose activity delivers the webhook_event outbox round after round. */
export interface WebhookDispatcherInput {
  /** Rounds before the workflow continues as new. Default WEBHOOK_DISPATCH.roundsPerRun. */
  roundsPerRun?: number;
  /** How long one delivery activity runs; at most (and by default) WEBHOOK_DISPATCH.roundMs. */
  roundMs?: number;
}

export type WebhookDispatcherWorkflow = (input: WebhookDispatcherInput) => Promise<void>;

export interface WebhookDeliveryRound {
  roundMs: number;
}

export interface WebhookDeliveryRoundResult {
  delivered: number;
  /** Failed, to be tried again. */
  failedAttempts: number;
  givenUp: number;
  /** The round stopped early: cancelled (worker shutdown, heartbeat timeout); claims were handed back. */
  interrupted: boolean;
}

/**
 * A round of a few minutes keeps one activity's heartbeats meaningful and its failure cheap; 50
 * rounds (about 200 minutes, some 300 history events) per run keep the history small.
 */
export const WEBHOOK_DISPATCH = { roundMs: 4 * 60_000, roundsPerRun: 50, heartbeatTimeoutMs: 30_000 } as const;

export const webhookDispatcherContract: WorkflowContract<WebhookDispatcherWorkflow> = {
  workflowType: 'webhookDispatcherWorkflow',
  // Fixed, whatever is passed.
  workflowId: () => 'webhook-dispatcher',
};
