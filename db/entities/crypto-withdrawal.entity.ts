import { EntitySchema } from '@mikro-orm/core';
import { DecimalStringType } from '../types/decimal-string.type';
import type { ReceiverType, WalletType } from '../../core/counterparty';
import type { OperationStatus } from '../../core/operation-status';

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

export class CryptoWithdrawal {
  id!: string;
  partnerId!: string;
  /** Set for withdrawals on behalf of a partner's user; null when the partner withdraws. */
  userId?: string | null;
  currency!: string;
  network!: string;
  amount!: string;
  fee!: string;
  destination!: string;
  memo?: string | null;
  walletType!: WalletType;
  receiverType!: ReceiverType;
  beneficiaryName!: string;
  status!: OperationStatus;
  stage!: CryptoWithdrawalStage;
  /** EUR value at request time; decides whether the travel-rule threshold applies. */
  amountEur!: string;
  travelRule?: Record<string, unknown> | null;
  transactionHash?: string | null;
  failureReason?: string | null;
  /** Set before the chain or bank is called: from then on the money may have left. */
  handedOffAt?: Date | null;
  /** The chain's or bank's definite answer that the money did not leave; only it may release after hand-off. */
  externalRejection?: string | null;
  /** An operator asked to cancel after the hand-off: recorded, the money waits for the answer. */
  cancelRequestedAt?: Date | null;
  createdAt!: Date;
  updatedAt!: Date;
}

export const CryptoWithdrawalSchema = new EntitySchema<CryptoWithdrawal>({
  class: CryptoWithdrawal,
  tableName: 'crypto_withdrawal',
  properties: {
    id: { type: 'uuid', primary: true },
    partnerId: { type: 'uuid', fieldName: 'partner_id' },
    userId: { type: 'uuid', fieldName: 'user_id', nullable: true },
    currency: { type: 'text' },
    network: { type: 'text' },
    amount: { type: new DecimalStringType() },
    fee: { type: new DecimalStringType() },
    destination: { type: 'text' },
    memo: { type: 'text', nullable: true },
    walletType: { type: 'text', fieldName: 'wallet_type' },
    receiverType: { type: 'text', fieldName: 'receiver_type' },
    beneficiaryName: { type: 'text', fieldName: 'beneficiary_name' },
    status: { type: 'text' },
    stage: { type: 'text' },
    amountEur: { type: new DecimalStringType(), fieldName: 'amount_eur' },
    travelRule: { type: 'json', columnType: 'jsonb', fieldName: 'travel_rule', nullable: true },
    transactionHash: { type: 'text', fieldName: 'transaction_hash', nullable: true },
    failureReason: { type: 'text', fieldName: 'failure_reason', nullable: true },
    handedOffAt: { type: 'Date', columnType: 'timestamptz', fieldName: 'handed_off_at', nullable: true },
    externalRejection: { type: 'text', fieldName: 'external_rejection', nullable: true },
    cancelRequestedAt: { type: 'Date', columnType: 'timestamptz', fieldName: 'cancel_requested_at', nullable: true },
    createdAt: { type: 'Date', columnType: 'timestamptz', fieldName: 'created_at' },
    updatedAt: { type: 'Date', columnType: 'timestamptz', fieldName: 'updated_at' },
  },
});
