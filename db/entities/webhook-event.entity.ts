import { defineEntity, p } from '@mikro-orm/core';
import type { InferEntity } from '@mikro-orm/core';
import { WEBHOOK_EVENT_TYPES, WEBHOOK_SUBJECT_TYPES } from '../../core/webhook-event';
import type { WebhookEvent as WebhookEventBody } from '../../core/webhook-event';

/**
 * The outbox, written by triggers in the transaction of the change for partners with an endpoint; kept after delivery or
 * giving up, as the delivery log.
 */
export const WebhookEvent = defineEntity({
  name: 'WebhookEvent',
  tableName: 'webhook_event',
  properties: {
    /** `evt_…`, also the `webhook-id` header: the same on every attempt. */
    id: p.text().primary(),
    partnerId: p.uuid().fieldName('partner_id'),
    /** The subject (an operation, deposit or address-book entry), despite the columns' names. */
    operationType: p.enum([...WEBHOOK_SUBJECT_TYPES]).fieldName('operation_type'),
    operationId: p.uuid().fieldName('operation_id'),
    /** 1, 2, 3, … per subject: delivered in this order. */
    sequence: p.integer(),
    type: p.enum([...WEBHOOK_EVENT_TYPES]),
    /** The body sent, as core/webhook-event.ts describes it. */
    payload: p.json<WebhookEventBody>().columnType('jsonb'),
    createdAt: p.datetime().columnType('timestamptz').defaultRaw('now()').fieldName('created_at'),
    attempts: p.integer().default(0),
    nextAttemptAt: p.datetime().columnType('timestamptz').defaultRaw('now()').fieldName('next_attempt_at'),
    /** A delivery in progress holds the event until then; a crashed one's claim expires. */
    claimedUntil: p.datetime().columnType('timestamptz').fieldName('claimed_until').nullable(),
    deliveredAt: p.datetime().columnType('timestamptz').fieldName('delivered_at').nullable(),
    givenUpAt: p.datetime().columnType('timestamptz').fieldName('given_up_at').nullable(),
    lastError: p.text().fieldName('last_error').nullable(),
  },
});
export type WebhookEvent = InferEntity<typeof WebhookEvent>;
