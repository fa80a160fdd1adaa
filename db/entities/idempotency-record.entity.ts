import { EntitySchema } from '@mikro-orm/core';

/**
 * One Idempotency-Key of one partner. The unique (partner_id, idempotency_key) constraint is
 * what makes a retried POST safe even after Temporal's id-reuse window has passed.
 */
export class IdempotencyRecord {
  id!: string;
  partnerId!: string;
  idempotencyKey!: string;
  /** Route the key was first used on, e.g. "POST /v1/partner/exchange". */
  operation!: string;
  /** SHA-256 of the canonical request body. */
  requestHash!: string;
  /** Id of the resource the request creates (exchange, withdrawal, transfer). */
  resourceId!: string;
  responseStatus?: number | null;
  responseBody?: Record<string, unknown> | null;
  createdAt!: Date;
  completedAt?: Date | null;
}

export const IdempotencyRecordSchema = new EntitySchema<IdempotencyRecord>({
  class: IdempotencyRecord,
  tableName: 'idempotency_record',
  properties: {
    id: { type: 'uuid', primary: true },
    partnerId: { type: 'uuid', fieldName: 'partner_id' },
    idempotencyKey: { type: 'text', fieldName: 'idempotency_key' },
    operation: { type: 'text' },
    requestHash: { type: 'text', fieldName: 'request_hash' },
    resourceId: { type: 'uuid', fieldName: 'resource_id' },
    responseStatus: { type: 'integer', fieldName: 'response_status', nullable: true },
    responseBody: { type: 'json', columnType: 'jsonb', fieldName: 'response_body', nullable: true },
    createdAt: { type: 'Date', columnType: 'timestamptz', fieldName: 'created_at' },
    completedAt: { type: 'Date', columnType: 'timestamptz', fieldName: 'completed_at', nullable: true },
  },
});
