import { EntitySchema } from '@mikro-orm/core';

export type LedgerTransferState = 'PENDING' | 'POSTED' | 'VOIDED';
export type LedgerTransferKind = 'DEPOSIT' | 'EXCHANGE' | 'CRYPTO_WITHDRAWAL' | 'SEPA_TRANSFER';

/** A balanced set of postings; two-phase transfers start PENDING and end POSTED or VOIDED. */
export class LedgerTransfer {
  /** The id of the business operation that moved the money: re-running the step finds it. */
  id!: string;
  kind!: LedgerTransferKind;
  state!: LedgerTransferState;
  createdAt!: Date;
  postedAt?: Date | null;
  voidedAt?: Date | null;
}

export const LedgerTransferSchema = new EntitySchema<LedgerTransfer>({
  class: LedgerTransfer,
  tableName: 'ledger_transfer',
  properties: {
    id: { type: 'uuid', primary: true },
    kind: { type: 'text' },
    state: { type: 'text' },
    createdAt: { type: 'Date', columnType: 'timestamptz', fieldName: 'created_at' },
    postedAt: { type: 'Date', columnType: 'timestamptz', fieldName: 'posted_at', nullable: true },
    voidedAt: { type: 'Date', columnType: 'timestamptz', fieldName: 'voided_at', nullable: true },
  },
});
