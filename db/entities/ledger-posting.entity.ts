import { EntitySchema } from '@mikro-orm/core';
import { DecimalStringType } from '../types/decimal-string.type';

/** One leg of a transfer: a signed amount into (+) or out of (−) one account. */
export class LedgerPosting {
  id!: string;
  transferId!: string;
  accountId!: string;
  currency!: string;
  amount!: string;
  createdAt!: Date;
}

export const LedgerPostingSchema = new EntitySchema<LedgerPosting>({
  class: LedgerPosting,
  tableName: 'ledger_posting',
  properties: {
    id: { type: 'uuid', primary: true },
    transferId: { type: 'uuid', fieldName: 'transfer_id' },
    accountId: { type: 'uuid', fieldName: 'account_id' },
    currency: { type: 'text' },
    amount: { type: new DecimalStringType() },
    createdAt: { type: 'Date', columnType: 'timestamptz', fieldName: 'created_at' },
  },
});
