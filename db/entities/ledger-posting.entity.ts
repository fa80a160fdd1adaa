import { defineEntity, p } from '@mikro-orm/core';
import type { InferEntity } from '@mikro-orm/core';
import type { Currency } from '../../core/currencies';
import { DecimalStringType } from '../types/decimal-string.type';

/** One leg of a transfer: a signed amount into (+) or out of (−) one account. */
export const LedgerPosting = defineEntity({
  name: 'LedgerPosting',
  tableName: 'ledger_posting',
  properties: {
    id: p.uuid().primary(),
    transferId: p.uuid().fieldName('transfer_id'),
    accountId: p.uuid().fieldName('account_id'),
    currency: p.text().$type<Currency>(),
    amount: p.type(new DecimalStringType()),
    createdAt: p.datetime().columnType('timestamptz').defaultRaw('now()').fieldName('created_at'),
  },
});
export type LedgerPosting = InferEntity<typeof LedgerPosting>;
