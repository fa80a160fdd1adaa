import { defineEntity, p } from '@mikro-orm/core';
import type { InferEntity } from '@mikro-orm/core';
import { FIAT_CURRENCIES } from '../../core/currencies';
import { RECEIVER_TYPES } from '../../core/counterparty';
import { DecimalStringType } from '../types/decimal-string.type';
import { outgoingPaymentColumns } from './outgoing-payment.columns';
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
    ...outgoingPaymentColumns,
  },
});
export type SepaTransfer = InferEntity<typeof SepaTransfer>;
