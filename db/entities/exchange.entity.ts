import { EntitySchema } from '@mikro-orm/core';
import { DecimalStringType } from '../types/decimal-string.type';
import type { OperationStatus } from '../../core/operation-status';

/** A currency exchange at a locked rate; final in one transaction, so it is SUCCESSFUL once stored. */
export class Exchange {
  id!: string;
  partnerId!: string;
  lockId!: string;
  currencyFrom!: string;
  currencyTo!: string;
  amountFrom!: string;
  /** Credited to the partner, after the fee. */
  amountTo!: string;
  /** Kept by the house, in currencyTo. */
  feeAmount!: string;
  status!: OperationStatus;
  createdAt!: Date;
}

export const ExchangeSchema = new EntitySchema<Exchange>({
  class: Exchange,
  tableName: 'exchange',
  properties: {
    id: { type: 'uuid', primary: true },
    partnerId: { type: 'uuid', fieldName: 'partner_id' },
    lockId: { type: 'uuid', fieldName: 'lock_id' },
    currencyFrom: { type: 'text', fieldName: 'currency_from' },
    currencyTo: { type: 'text', fieldName: 'currency_to' },
    amountFrom: { type: new DecimalStringType(), fieldName: 'amount_from' },
    amountTo: { type: new DecimalStringType(), fieldName: 'amount_to' },
    feeAmount: { type: new DecimalStringType(), fieldName: 'fee_amount' },
    status: { type: 'text' },
    createdAt: { type: 'Date', columnType: 'timestamptz', fieldName: 'created_at' },
  },
});
