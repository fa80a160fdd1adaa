import { EntitySchema } from '@mikro-orm/core';
import { DecimalStringType } from '../types/decimal-string.type';

export type AccountKind = 'PARTNER' | 'SYSTEM';
export type FiatAccountStatus = 'ACTIVE' | 'WAITING_TO_BE_ACTIVATED';

/**
 * A ledger account: a partner's balance in one currency, or a system account (fee income,
 * exchange desk, withdrawals and SEPA clearing, deposits from outside). The three amounts are a
 * cache of the postings, kept in the same transaction; reconciliation checks them.
 */
export class Account {
  id!: string;
  kind!: AccountKind;
  partnerId?: string | null;
  systemCode?: string | null;
  currency!: string;
  iban?: string | null;
  fiatStatus?: FiatAccountStatus | null;
  walletAddress?: string | null;
  postedAmount!: string;
  /** Sum of pending (reserved) outgoing postings, as a positive amount. */
  pendingOutAmount!: string;
  /** Sum of pending incoming postings, as a positive amount. */
  pendingInAmount!: string;
  createdAt!: Date;
}

export const AccountSchema = new EntitySchema<Account>({
  class: Account,
  tableName: 'account',
  properties: {
    id: { type: 'uuid', primary: true },
    kind: { type: 'text' },
    partnerId: { type: 'uuid', fieldName: 'partner_id', nullable: true },
    systemCode: { type: 'text', fieldName: 'system_code', nullable: true },
    currency: { type: 'text' },
    iban: { type: 'text', nullable: true },
    fiatStatus: { type: 'text', fieldName: 'fiat_status', nullable: true },
    walletAddress: { type: 'text', fieldName: 'wallet_address', nullable: true },
    postedAmount: { type: new DecimalStringType(), fieldName: 'posted_amount' },
    pendingOutAmount: { type: new DecimalStringType(), fieldName: 'pending_out_amount' },
    pendingInAmount: { type: new DecimalStringType(), fieldName: 'pending_in_amount' },
    createdAt: { type: 'Date', columnType: 'timestamptz', fieldName: 'created_at' },
  },
});
