import { defineEntity, p } from '@mikro-orm/core';
import type { InferEntity } from '@mikro-orm/core';
import { CURRENCIES } from '../../core/currencies';
import { DecimalStringType } from '../types/decimal-string.type';

export type AccountKind = 'PARTNER' | 'SYSTEM';
export type FiatAccountStatus = 'ACTIVE' | 'WAITING_TO_BE_ACTIVATED';

/** A partner's balance in one currency, or a system account; the amounts cache the postings (reconciliation checks them). */
export const Account = defineEntity({
  name: 'Account',
  tableName: 'account',
  properties: {
    id: p.uuid().primary(),
    kind: p.enum(['PARTNER', 'SYSTEM'] satisfies AccountKind[]),
    partnerId: p.uuid().fieldName('partner_id').nullable(),
    systemCode: p.text().fieldName('system_code').nullable(),
    currency: p.enum([...CURRENCIES]),
    iban: p.text().nullable(),
    fiatStatus: p
      .enum(['ACTIVE', 'WAITING_TO_BE_ACTIVATED'] satisfies FiatAccountStatus[])
      .fieldName('fiat_status')
      .nullable(),
    walletAddress: p.text().fieldName('wallet_address').nullable(),
    postedAmount: p.type(new DecimalStringType()).defaultRaw('0').fieldName('posted_amount'),
    /** Pending outgoing (held) and incoming postings, each summed as a positive amount. */
    pendingOutAmount: p.type(new DecimalStringType()).defaultRaw('0').fieldName('pending_out_amount'),
    pendingInAmount: p.type(new DecimalStringType()).defaultRaw('0').fieldName('pending_in_amount'),
    createdAt: p.datetime().columnType('timestamptz').defaultRaw('now()').fieldName('created_at'),
  },
});
export type Account = InferEntity<typeof Account>;
