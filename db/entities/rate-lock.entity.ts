import { EntitySchema } from '@mikro-orm/core';
import { DecimalStringType } from '../types/decimal-string.type';

/** A partner's 40-second, single-use quote: the rates and fee an exchange will use. */
export class RateLock {
  id!: string;
  partnerId!: string;
  /** EUR price per currency as decimal strings. */
  rates!: Record<string, string>;
  feePercentage!: string;
  createdAt!: Date;
  validUntil!: Date;
  usedAt?: Date | null;
}

export const RateLockSchema = new EntitySchema<RateLock>({
  class: RateLock,
  tableName: 'rate_lock',
  properties: {
    id: { type: 'uuid', primary: true },
    partnerId: { type: 'uuid', fieldName: 'partner_id' },
    rates: { type: 'json', columnType: 'jsonb' },
    feePercentage: { type: new DecimalStringType(7, 4), fieldName: 'fee_percentage' },
    createdAt: { type: 'Date', columnType: 'timestamptz', fieldName: 'created_at' },
    validUntil: { type: 'Date', columnType: 'timestamptz', fieldName: 'valid_until' },
    usedAt: { type: 'Date', columnType: 'timestamptz', fieldName: 'used_at', nullable: true },
  },
});
