import { defineEntity, p } from '@mikro-orm/core';
import type { InferEntity } from '@mikro-orm/core';
import type { Currency, Network } from '../../core/currencies';
import { RECEIVER_TYPES, WALLET_TYPES } from '../../core/counterparty';
import { DecimalStringType } from '../types/decimal-string.type';
import { OPERATION_STATUSES } from './operation-status.column';

/** Where the workflow is; finer than the public status, for operators. */
export type CryptoWithdrawalStage =
  | 'RESERVED'
  | 'AWAITING_TRAVEL_RULE_DATA'
  | 'TRAVEL_RULE_CLEARED'
  | 'BROADCASTING'
  | 'BROADCAST'
  | 'SETTLED'
  | 'FAILED'
  | 'REJECTED'
  | 'CANCELLED';

export const CryptoWithdrawal = defineEntity({
  name: 'CryptoWithdrawal',
  tableName: 'crypto_withdrawal',
  properties: {
    id: p.uuid().primary(),
    partnerId: p.uuid().fieldName('partner_id'),
    /** Set for withdrawals on behalf of a partner's user; null when the partner withdraws. */
    userId: p.uuid().fieldName('user_id').nullable(),
    currency: p.text().$type<Currency>(),
    network: p.text().$type<Network>(),
    amount: p.type(new DecimalStringType()),
    fee: p.type(new DecimalStringType()),
    destination: p.text(),
    memo: p.text().nullable(),
    walletType: p.enum([...WALLET_TYPES]).fieldName('wallet_type'),
    receiverType: p.enum([...RECEIVER_TYPES]).fieldName('receiver_type'),
    beneficiaryName: p.text().fieldName('beneficiary_name'),
    status: p.enum(OPERATION_STATUSES),
    stage: p.text().$type<CryptoWithdrawalStage>(),
    /** EUR value at request time; decides whether the travel-rule threshold applies. */
    amountEur: p.type(new DecimalStringType()).fieldName('amount_eur'),
    travelRule: p.json<Record<string, unknown>>().columnType('jsonb').fieldName('travel_rule').nullable(),
    transactionHash: p.text().fieldName('transaction_hash').nullable(),
    failureReason: p.text().fieldName('failure_reason').nullable(),
    /** Set before the chain or bank is called: from then on the money may have left. */
    handedOffAt: p.datetime().columnType('timestamptz').fieldName('handed_off_at').nullable(),
    /** The chain's or bank's definite answer that the money did not leave; only it may release after hand-off. */
    externalRejection: p.text().fieldName('external_rejection').nullable(),
    /** An operator asked to cancel after the hand-off: recorded, the money waits for the answer. */
    cancelRequestedAt: p.datetime().columnType('timestamptz').fieldName('cancel_requested_at').nullable(),
    createdAt: p.datetime().columnType('timestamptz').defaultRaw('now()').fieldName('created_at'),
    updatedAt: p.datetime().columnType('timestamptz').defaultRaw('now()').fieldName('updated_at'),
  },
});
export type CryptoWithdrawal = InferEntity<typeof CryptoWithdrawal>;
