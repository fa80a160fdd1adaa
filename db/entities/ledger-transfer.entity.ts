import { defineEntity, p } from '@mikro-orm/core';
import type { InferEntity } from '@mikro-orm/core';

export type LedgerTransferState = 'PENDING' | 'POSTED' | 'VOIDED';
/**
 * CRYPTO_WITHDRAWAL_FEE: CryptoWithdrawalKeptFee; SEPA_UNMATCHED: an unmatched incoming credit into suspense; SEPA_RETURN:
 * its return; NETWORK_FEE: what a settled withdrawal's transaction paid the network (crypto_withdrawal_network_fee).
 */
export const LEDGER_TRANSFER_KINDS = [
  'DEPOSIT',
  'EXCHANGE',
  'CRYPTO_WITHDRAWAL',
  'SEPA_TRANSFER',
  'CRYPTO_WITHDRAWAL_FEE',
  'SEPA_UNMATCHED',
  'SEPA_RETURN',
  'NETWORK_FEE',
] as const;
export type LedgerTransferKind = (typeof LEDGER_TRANSFER_KINDS)[number];

/** A balanced set of postings; two-phase transfers start PENDING and end POSTED or VOIDED. */
export const LedgerTransfer = defineEntity({
  name: 'LedgerTransfer',
  tableName: 'ledger_transfer',
  properties: {
    /** The id of the business operation that moved the money: re-running the step finds it. */
    id: p.uuid().primary(),
    kind: p.enum([...LEDGER_TRANSFER_KINDS]),
    state: p.enum(['PENDING', 'POSTED', 'VOIDED'] satisfies LedgerTransferState[]),
    createdAt: p.datetime().columnType('timestamptz').defaultRaw('now()').fieldName('created_at'),
    postedAt: p.datetime().columnType('timestamptz').fieldName('posted_at').nullable(),
    voidedAt: p.datetime().columnType('timestamptz').fieldName('voided_at').nullable(),
  },
});
export type LedgerTransfer = InferEntity<typeof LedgerTransfer>;
