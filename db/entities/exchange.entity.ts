import { defineEntity, p } from '@mikro-orm/core';
import type { InferEntity } from '@mikro-orm/core';
import type { Currency } from '../../core/currencies';
import { DecimalStringType } from '../types/decimal-string.type';
import { OPERATION_STATUSES } from './operation-status.column';

/** A currency exchange at a locked rate; final in one transaction, so it is SUCCESSFUL once stored. */
export const Exchange = defineEntity({
  name: 'Exchange',
  tableName: 'exchange',
  properties: {
    id: p.uuid().primary(),
    partnerId: p.uuid().fieldName('partner_id'),
    lockId: p.uuid().fieldName('lock_id'),
    currencyFrom: p.text().$type<Currency>().fieldName('currency_from'),
    currencyTo: p.text().$type<Currency>().fieldName('currency_to'),
    amountFrom: p.type(new DecimalStringType()).fieldName('amount_from'),
    /** Credited to the partner, after the fee. */
    amountTo: p.type(new DecimalStringType()).fieldName('amount_to'),
    /** Kept by the house, in currencyTo. */
    feeAmount: p.type(new DecimalStringType()).fieldName('fee_amount'),
    status: p.enum(OPERATION_STATUSES),
    createdAt: p.datetime().columnType('timestamptz').defaultRaw('now()').fieldName('created_at'),
  },
});
export type Exchange = InferEntity<typeof Exchange>;
