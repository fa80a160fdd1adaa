import { defineEntity, p } from '@mikro-orm/core';
import type { InferEntity } from '@mikro-orm/core';
import { DecimalStringType } from '../types/decimal-string.type';

/** A partner's 40-second, single-use quote: the rates and fee an exchange will use. */
export const RateLock = defineEntity({
  name: 'RateLock',
  tableName: 'rate_lock',
  properties: {
    id: p.uuid().primary(),
    partnerId: p.uuid().fieldName('partner_id'),
    /** EUR price per currency as decimal strings. */
    rates: p.json<Record<string, string>>().columnType('jsonb'),
    feePercentage: p.type(new DecimalStringType(7, 4)).fieldName('fee_percentage'),
    createdAt: p.datetime().columnType('timestamptz').fieldName('created_at'),
    validUntil: p.datetime().columnType('timestamptz').fieldName('valid_until'),
    usedAt: p.datetime().columnType('timestamptz').fieldName('used_at').nullable(),
  },
});
export type RateLock = InferEntity<typeof RateLock>;
