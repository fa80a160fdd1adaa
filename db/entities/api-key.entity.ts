import { defineEntity, p } from '@mikro-orm/core';
import type { InferEntity } from '@mikro-orm/core';

/** A partner's API key; only the SHA-256 of the secret is stored. */
export const ApiKey = defineEntity({
  name: 'ApiKey',
  tableName: 'api_key',
  properties: {
    id: p.uuid().primary(),
    partnerId: p.uuid().fieldName('partner_id'),
    keyHash: p.text().fieldName('key_hash'),
    /** First characters of the key, so operators can tell keys apart without the secret. */
    keyPrefix: p.text().fieldName('key_prefix'),
    createdAt: p.datetime().columnType('timestamptz').defaultRaw('now()').fieldName('created_at'),
    revokedAt: p.datetime().columnType('timestamptz').fieldName('revoked_at').nullable(),
  },
});
export type ApiKey = InferEntity<typeof ApiKey>;
