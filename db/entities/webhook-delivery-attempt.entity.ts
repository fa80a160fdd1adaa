import { defineEntity, p } from '@mikro-orm/core';
import type { InferEntity } from '@mikro-orm/core';

/** One POST of one webhook event: when, what the endpoint answered (or why nothing), how long it took. */
export const WebhookDeliveryAttempt = defineEntity({
  name: 'WebhookDeliveryAttempt',
  tableName: 'webhook_delivery_attempt',
  properties: {
    id: p.uuid().primary(),
    eventId: p.text().fieldName('event_id'),
    /** 1 for the first attempt of the event. */
    attempt: p.integer(),
    attemptedAt: p.datetime().columnType('timestamptz').fieldName('attempted_at'),
    /** Null when no answer came (timeout, refused connection, …). */
    httpStatus: p.integer().fieldName('http_status').nullable(),
    error: p.text().nullable(),
    durationMs: p.integer().fieldName('duration_ms'),
  },
});
export type WebhookDeliveryAttempt = InferEntity<typeof WebhookDeliveryAttempt>;
