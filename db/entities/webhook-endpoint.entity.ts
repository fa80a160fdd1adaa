import { defineEntity, p } from '@mikro-orm/core';
import type { InferEntity } from '@mikro-orm/core';

/** A partner's webhook endpoint and its Standard Webhooks secret (`whsec_…`), shown once when set and never logged. */
export const WebhookEndpoint = defineEntity({
  name: 'WebhookEndpoint',
  tableName: 'webhook_endpoint',
  properties: {
    partnerId: p.uuid().primary().fieldName('partner_id'),
    url: p.text(),
    secret: p.text(),
    createdAt: p.datetime().columnType('timestamptz').defaultRaw('now()').fieldName('created_at'),
    updatedAt: p.datetime().columnType('timestamptz').defaultRaw('now()').fieldName('updated_at'),
  },
});
export type WebhookEndpoint = InferEntity<typeof WebhookEndpoint>;
