import { defineEntity, p } from '@mikro-orm/core';
import type { InferEntity } from '@mikro-orm/core';
import type { Currency } from '../../core/currencies';
import type { Network } from '../../core/networks';
import { RECEIVER_TYPES, WALLET_TYPES } from '../../core/counterparty';
import { DecimalStringType } from '../types/decimal-string.type';
import { outgoingPaymentColumns } from './outgoing-payment.columns';
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
    /** When the chain answered that its transaction failed (reverted): the network was paid, so its rejection keeps the fee. */
    failedOnChainAt: p.datetime().columnType('timestamptz').fieldName('failed_on_chain_at').nullable(),
    /** What its transaction paid the network, in the network's coin, read when the chain answered; null when simulated or before. */
    networkFeePaid: p.type(new DecimalStringType()).fieldName('network_fee_paid').nullable(),
    ...outgoingPaymentColumns,
  },
});
export type CryptoWithdrawal = InferEntity<typeof CryptoWithdrawal>;
