import { EntitySchema } from '@mikro-orm/core';
import { DecimalStringType } from '../types/decimal-string.type';

export type DepositType = 'sepaDeposit' | 'fiatDeposit' | 'cryptoDeposit';

/** Money that arrived from outside into a partner's account (posted at once). */
export class Deposit {
  id!: string;
  partnerId!: string;
  accountId!: string;
  currency!: string;
  amount!: string;
  type!: DepositType;
  createdAt!: Date;
}

export const DepositSchema = new EntitySchema<Deposit>({
  class: Deposit,
  tableName: 'deposit',
  properties: {
    id: { type: 'uuid', primary: true },
    partnerId: { type: 'uuid', fieldName: 'partner_id' },
    accountId: { type: 'uuid', fieldName: 'account_id' },
    currency: { type: 'text' },
    amount: { type: new DecimalStringType() },
    type: { type: 'text' },
    createdAt: { type: 'Date', columnType: 'timestamptz', fieldName: 'created_at' },
  },
});
