import { defineEntity, p } from '@mikro-orm/core';
import type { InferEntity } from '@mikro-orm/core';

/** One Idempotency-Key of one partner; its unique constraint keeps a retried POST safe after Temporal's id-reuse window. */
export const IdempotencyRecord = defineEntity({
  name: 'IdempotencyRecord',
  tableName: 'idempotency_record',
  properties: {
    id: p.uuid().primary(),
    partnerId: p.uuid().fieldName('partner_id'),
    idempotencyKey: p.text().fieldName('idempotency_key'),
    /** Route the key was first used on, e.g. "POST /v1/partner/exchange". */
    operation: p.text(),
    /** SHA-256 of the canonical request body. */
    requestHash: p.text().fieldName('request_hash'),
    /** Id of the resource the request creates (exchange, withdrawal, transfer). */
    resourceId: p.uuid().fieldName('resource_id'),
    responseStatus: p.integer().fieldName('response_status').nullable(),
    responseBody: p.json<Record<string, unknown>>().columnType('jsonb').fieldName('response_body').nullable(),
    createdAt: p.datetime().columnType('timestamptz').defaultRaw('now()').fieldName('created_at'),
    completedAt: p.datetime().columnType('timestamptz').fieldName('completed_at').nullable(),
  },
});
export type IdempotencyRecord = InferEntity<typeof IdempotencyRecord>;
