import { defineEntity, p } from '@mikro-orm/core';
import type { InferEntity } from '@mikro-orm/core';
import type { Currency } from '../../core/currencies';
import { DecimalStringType } from '../types/decimal-string.type';

export type DepositType = 'sepaDeposit' | 'fiatDeposit' | 'cryptoDeposit';

/** Money that arrived from outside into a partner's account (posted at once). */
export const Deposit = defineEntity({
  name: 'Deposit',
  tableName: 'deposit',
  properties: {
    id: p.uuid().primary(),
    partnerId: p.uuid().fieldName('partner_id'),
    accountId: p.uuid().fieldName('account_id'),
    currency: p.text().$type<Currency>(),
    amount: p.type(new DecimalStringType()),
    type: p.enum(['sepaDeposit', 'fiatDeposit', 'cryptoDeposit'] satisfies DepositType[]),
    createdAt: p.datetime().columnType('timestamptz').defaultRaw('now()').fieldName('created_at'),
  },
});
export type Deposit = InferEntity<typeof Deposit>;
