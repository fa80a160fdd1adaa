import { defineEntity, p } from '@mikro-orm/core';
import type { InferEntity } from '@mikro-orm/core';
import { API_KEY_SCOPES } from '../../core/api-keys';

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
    /** `read`: GET only; `payments`: everything. */
    scope: p.enum([...API_KEY_SCOPES]).default('payments'),
    createdAt: p.datetime().columnType('timestamptz').defaultRaw('now()').fieldName('created_at'),
    /** Null: never. From this instant on the key is refused like a revoked one. */
    expiresAt: p.datetime().columnType('timestamptz').fieldName('expires_at').nullable(),
    /** Coarse: written at most once a minute (api/auth/key-usage.ts), never announced to the caches. */
    lastUsedAt: p.datetime().columnType('timestamptz').fieldName('last_used_at').nullable(),
    revokedAt: p.datetime().columnType('timestamptz').fieldName('revoked_at').nullable(),
    /** The key `ops key rotate` issued in its place; set once. */
    replacedBy: p.uuid().fieldName('replaced_by').nullable(),
  },
});
export type ApiKey = InferEntity<typeof ApiKey>;
