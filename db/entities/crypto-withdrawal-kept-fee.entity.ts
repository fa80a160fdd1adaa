import { defineEntity, p } from '@mikro-orm/core';
import type { InferEntity } from '@mikro-orm/core';
import type { Currency } from '../../core/currencies';
import { DecimalStringType } from '../types/decimal-string.type';

/**
 * The network fee a withdrawal that failed on chain keeps (the network was paid) while its amount is refunded: the record of
 * the CRYPTO_WITHDRAWAL_FEE transfer with the same id, at most one per withdrawal.
 */
export const CryptoWithdrawalKeptFee = defineEntity({
  name: 'CryptoWithdrawalKeptFee',
  tableName: 'crypto_withdrawal_kept_fee',
  properties: {
    /** The fee transfer's id, derived from the withdrawal's (db/ledger/derived-transfer-id.ts). */
    id: p.uuid().primary(),
    withdrawalId: p.uuid().fieldName('withdrawal_id'),
    partnerId: p.uuid().fieldName('partner_id'),
    currency: p.text().$type<Currency>(),
    amount: p.type(new DecimalStringType()),
    createdAt: p.datetime().columnType('timestamptz').defaultRaw('now()').fieldName('created_at'),
  },
});
export type CryptoWithdrawalKeptFee = InferEntity<typeof CryptoWithdrawalKeptFee>;
