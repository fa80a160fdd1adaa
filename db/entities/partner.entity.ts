import { defineEntity, p } from '@mikro-orm/core';
import type { InferEntity } from '@mikro-orm/core';
import { DecimalStringType } from '../types/decimal-string.type';

export const Partner = defineEntity({
  name: 'Partner',
  tableName: 'partner',
  properties: {
    id: p.uuid().primary(),
    name: p.text(),
    /** Percentage taken on exchanges, e.g. "1.5" for 1.5 %. */
    feePercentage: p.type(new DecimalStringType(7, 4)).fieldName('fee_percentage'),
    /** Its deposit addresses' HD index (core/deposit-addresses.ts), from partner_deposit_index_seq: never reused. */
    depositIndex: p.integer().fieldName('deposit_index').autoincrement(),
    createdAt: p.datetime().columnType('timestamptz').defaultRaw('now()').fieldName('created_at'),
  },
});
export type Partner = InferEntity<typeof Partner>;
