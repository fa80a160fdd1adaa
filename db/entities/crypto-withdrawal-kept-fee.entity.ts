import { defineEntity, p } from '@mikro-orm/core';
import type { InferEntity } from '@mikro-orm/core';
import type { Currency } from '../../core/currencies';
import { DecimalStringType } from '../types/decimal-string.type';

/**
 * The network fee of a crypto withdrawal whose transaction failed on chain: the network was paid,
 * so the fee stays with the house while the amount is refunded. The business record of the
 * ledger transfer (kind CRYPTO_WITHDRAWAL_FEE) with the same id; at most one per withdrawal.
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
