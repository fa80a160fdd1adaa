import type { WorkflowContract } from './operation.contract';

/**
 * The webhook dispatcher: one long-running workflow (fixed id) whose activity delivers the events
 * of the outbox (webhook_event) round after round, continuing as new after a bounded number of
 * rounds so its history stays small. The worker starts it on boot if it is not running.
 */
export interface WebhookDispatcherInput {
  /** Rounds before the workflow continues as new. Default WEBHOOK_DISPATCH.roundsPerRun. */
  roundsPerRun?: number;
  /** How long one delivery activity runs; at most (and by default) WEBHOOK_DISPATCH.roundMs. */
  roundMs?: number;
}

export type WebhookDispatcherWorkflow = (input: WebhookDispatcherInput) => Promise<void>;

/** What one round of the delivery activity is asked to do. */
export interface WebhookDeliveryRound {
  roundMs: number;
}

/** What one round did, counted per attempt outcome. */
export interface WebhookDeliveryRoundResult {
  delivered: number;
  /** Attempts that failed and will be tried again. */
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
  // One per namespace: the id is fixed, whatever is passed.
  workflowId: () => 'webhook-dispatcher',
};
