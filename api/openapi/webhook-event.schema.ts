import { z } from 'zod';
import { WEBHOOK_EVENT_TYPES } from '../../core/webhook-event';
import type { WebhookEvent, WebhookEventType } from '../../core/webhook-event';
import { OPERATION_STATUSES } from '../schemas/response-fields.schema';

/** What each event type is about (its subject, and the id the API returned for it), for the document. */
export const WEBHOOK_EVENT_SUBJECTS: Readonly<Record<WebhookEventType, { subject: string; idName: string }>> = {
  'crypto_withdrawal.status_changed': { subject: "a crypto withdrawal (the partner's own or on behalf of a user)", idName: 'withdrawalId' },
  'sepa_transfer.status_changed': { subject: 'a SEPA transfer', idName: 'transferId' },
  'exchange.status_changed': { subject: 'an exchange', idName: 'exchangeId' },
};

const eventData = z.strictObject({
  id: z.uuid().meta({ description: 'The operation id, as the API returned it.', examples: ['9d5f2c1a-6b8e-4f3d-a2c7-1e0b9a8d7c6f'] }),
  userId: z.string().optional().meta({ description: "Present when the operation was made on behalf of one of the partner's users." }),
  status: z.enum(OPERATION_STATUSES).meta({ description: 'The public status, as in the history and the withdrawal details.' }),
  stage: z.string().meta({
    description: 'Finer than status: RESERVED, AWAITING_TRAVEL_RULE_DATA, BROADCAST, SETTLED, REJECTED, CANCELLED, …',
    examples: ['SETTLED'],
  }),
  failureReason: z
    .string()
    .nullable()
    .meta({ description: 'Why an UNSUCCESSFUL operation ended; null otherwise.', examples: [null] }),
  sequence: z
    .int()
    .min(1)
    .meta({ description: 'Per operation 1, 2, 3, …: the order of its events.', examples: [3] }),
});

/** The body of one event type (Standard Webhooks payload: no personal data). */
export function webhookEventSchema<Type extends WebhookEventType>(type: Type) {
  return z.strictObject({
    id: z
      .string()
      .min(1)
      .meta({
        description: 'The event id, also sent as webhook-id: the same on every retry, so a receiver can drop duplicates.',
        examples: ['evt_2b1a6c5e3f0e4c528f7d0c8c2a9f4e11'],
      }),
    type: z.literal(type).meta({ description: 'The event type.' }),
    timestamp: z.iso.datetime().meta({ description: 'When the status changed (UTC).', examples: ['2026-11-21T16:12:27.786Z'] }),
    data: eventData,
  });
}

/** Any event, for receivers that parse them all with one schema. */
export const anyWebhookEventSchema = z.union(WEBHOOK_EVENT_TYPES.map((type) => webhookEventSchema(type)));

// The schema and core's type describe the same body: neither may drift from the other.
type Same<Left, Right> = [Left] extends [Right] ? ([Right] extends [Left] ? true : false) : false;
const schemaMatchesCoreType: Same<z.output<typeof anyWebhookEventSchema>, WebhookEvent> = true;
void schemaMatchesCoreType;
