import { EntitySchema } from '@mikro-orm/core';
import { DecimalStringType } from '../types/decimal-string.type';

export class Partner {
  id!: string;
  name!: string;
  /** Percentage taken on exchanges, e.g. "1.5" for 1.5 %. */
  feePercentage!: string;
  createdAt!: Date;
}

export const PartnerSchema = new EntitySchema<Partner>({
  class: Partner,
  tableName: 'partner',
  properties: {
    id: { type: 'uuid', primary: true },
    name: { type: 'text' },
    feePercentage: { type: new DecimalStringType(7, 4), fieldName: 'fee_percentage' },
    createdAt: { type: 'Date', columnType: 'timestamptz', fieldName: 'created_at' },
  },
});
