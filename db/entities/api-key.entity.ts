import { EntitySchema } from '@mikro-orm/core';

/** A partner's API key; only the SHA-256 of the secret is stored. */
export class ApiKey {
  id!: string;
  partnerId!: string;
  keyHash!: string;
  /** First characters of the key, so operators can tell keys apart without the secret. */
  keyPrefix!: string;
  createdAt!: Date;
  revokedAt?: Date | null;
}

export const ApiKeySchema = new EntitySchema<ApiKey>({
  class: ApiKey,
  tableName: 'api_key',
  properties: {
    id: { type: 'uuid', primary: true },
    partnerId: { type: 'uuid', fieldName: 'partner_id' },
    keyHash: { type: 'text', fieldName: 'key_hash' },
    keyPrefix: { type: 'text', fieldName: 'key_prefix' },
    createdAt: { type: 'Date', columnType: 'timestamptz', fieldName: 'created_at' },
    revokedAt: { type: 'Date', columnType: 'timestamptz', fieldName: 'revoked_at', nullable: true },
  },
});
