import { EntitySchema } from '@mikro-orm/core';
import { DecimalStringType } from '../types/decimal-string.type';
import type { OperationStatus } from '../../core/operation-status';
import type { ReceiverType } from '../../core/counterparty';

export type SepaTransferStage = 'RESERVED' | 'SUBMITTED' | 'SETTLED' | 'REJECTED' | 'FAILED' | 'CANCELLED';

export class SepaTransfer {
  id!: string;
  partnerId!: string;
  currency!: string;
  amount!: string;
  receiverType!: ReceiverType;
  receiverFirstName?: string | null;
  receiverLastName?: string | null;
  companyName?: string | null;
  destinationIban!: string;
  transferTitle!: string;
  status!: OperationStatus;
  stage!: SepaTransferStage;
  /** ISO 20022 message id of the pain.001 sent to the bank. */
  messageId?: string | null;
  bankReference?: string | null;
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

export const SepaTransferSchema = new EntitySchema<SepaTransfer>({
  class: SepaTransfer,
  tableName: 'sepa_transfer',
  properties: {
    id: { type: 'uuid', primary: true },
    partnerId: { type: 'uuid', fieldName: 'partner_id' },
    currency: { type: 'text' },
    amount: { type: new DecimalStringType() },
    receiverType: { type: 'text', fieldName: 'receiver_type' },
    receiverFirstName: { type: 'text', fieldName: 'receiver_first_name', nullable: true },
    receiverLastName: { type: 'text', fieldName: 'receiver_last_name', nullable: true },
    companyName: { type: 'text', fieldName: 'company_name', nullable: true },
    destinationIban: { type: 'text', fieldName: 'destination_iban' },
    transferTitle: { type: 'text', fieldName: 'transfer_title' },
    status: { type: 'text' },
    stage: { type: 'text' },
    messageId: { type: 'text', fieldName: 'message_id', nullable: true },
    bankReference: { type: 'text', fieldName: 'bank_reference', nullable: true },
    failureReason: { type: 'text', fieldName: 'failure_reason', nullable: true },
    handedOffAt: { type: 'Date', columnType: 'timestamptz', fieldName: 'handed_off_at', nullable: true },
    externalRejection: { type: 'text', fieldName: 'external_rejection', nullable: true },
    cancelRequestedAt: { type: 'Date', columnType: 'timestamptz', fieldName: 'cancel_requested_at', nullable: true },
    createdAt: { type: 'Date', columnType: 'timestamptz', fieldName: 'created_at' },
    updatedAt: { type: 'Date', columnType: 'timestamptz', fieldName: 'updated_at' },
  },
});
