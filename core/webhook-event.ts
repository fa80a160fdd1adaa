import { OPERATION_TYPES, OPERATION_TYPE_NAMES } from './operation-types';
import type { OperationType } from './operation-types';
import type { OperationStatus } from './operation-status';

/**
 * What a partner's webhook endpoint receives (Standard Webhooks: `webhook-id`, `webhook-timestamp`,
 * `webhook-signature` headers; this is the JSON body). One event per status change of an
 * operation; no personal data: ids, amounts, currencies, status, stage and failure reason only.
 * Shared by the delivery (activities) and the OpenAPI document (its `webhooks` section).
 */
/** One per operation type (core/operation-types.ts). */
export type WebhookEventType = (typeof OPERATION_TYPES)[OperationType]['webhookEventType'];
export const WEBHOOK_EVENT_TYPES: readonly WebhookEventType[] = OPERATION_TYPE_NAMES.map((type) => OPERATION_TYPES[type].webhookEventType);

export interface WebhookEvent {
  /** The event id, also sent as `webhook-id`: stable across retries, so a receiver can drop duplicates. */
  id: string;
  type: WebhookEventType;
  /** When the status changed (ISO 8601, UTC). */
  timestamp: string;
  data: WebhookEventData;
}

export interface WebhookEventData {
  /** The operation's id as the API returned it (withdrawal, SEPA transfer or exchange id). */
  id: string;
  /**
   * Present when the operation was made on behalf of one of the partner's users: the partner's own
   * id for the user (the `sourceExternalUserId` of the request).
   */
  userId?: string;
  status: OperationStatus;
  /** Finer than status: RESERVED, AWAITING_TRAVEL_RULE_DATA, BROADCAST, SETTLED, REJECTED, CANCELLED, … */
  stage: string;
  /** Why an UNSUCCESSFUL operation ended; null otherwise. */
  failureReason: string | null;
  /** Per operation, 1, 2, 3, …: events of one operation are delivered in this order. */
  sequence: number;
}
