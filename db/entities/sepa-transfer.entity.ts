import { defineEntity, p } from '@mikro-orm/core';
import type { InferEntity } from '@mikro-orm/core';
import { FIAT_CURRENCIES } from '../../core/currencies';
import { RECEIVER_TYPES } from '../../core/counterparty';
import { DecimalStringType } from '../types/decimal-string.type';
import { OPERATION_STATUSES } from './operation-status.column';

export type SepaTransferStage = 'RESERVED' | 'SUBMITTED' | 'SETTLED' | 'REJECTED' | 'FAILED' | 'CANCELLED';

export const SepaTransfer = defineEntity({
  name: 'SepaTransfer',
  tableName: 'sepa_transfer',
  properties: {
    id: p.uuid().primary(),
    partnerId: p.uuid().fieldName('partner_id'),
    currency: p.enum([...FIAT_CURRENCIES]),
    amount: p.type(new DecimalStringType()),
    receiverType: p.enum([...RECEIVER_TYPES]).fieldName('receiver_type'),
    receiverFirstName: p.text().fieldName('receiver_first_name').nullable(),
    receiverLastName: p.text().fieldName('receiver_last_name').nullable(),
    companyName: p.text().fieldName('company_name').nullable(),
    destinationIban: p.text().fieldName('destination_iban'),
    transferTitle: p.text().fieldName('transfer_title'),
    status: p.enum(OPERATION_STATUSES),
    stage: p.text().$type<SepaTransferStage>(),
    /** ISO 20022 message id of the pain.001 sent to the bank. */
    messageId: p.text().fieldName('message_id').nullable(),
    bankReference: p.text().fieldName('bank_reference').nullable(),
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
export type SepaTransfer = InferEntity<typeof SepaTransfer>;
