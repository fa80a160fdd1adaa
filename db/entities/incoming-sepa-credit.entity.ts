import { defineEntity, p } from '@mikro-orm/core';
import type { InferEntity } from '@mikro-orm/core';
import { DecimalStringType } from '../types/decimal-string.type';

export const INCOMING_SEPA_CREDIT_STATUSES = ['CREDITED', 'UNMATCHED', 'ASSIGNED', 'RETURNING', 'RETURNED'] as const;
/**
 * CREDITED: matched at once. UNMATCHED: in suspense, waiting for an operator. ASSIGNED: an operator credited a partner from
 * suspense. RETURNING: sent back, the bank has not settled the return yet. RETURNED: it has.
 */
export type IncomingSepaCreditStatus = (typeof INCOMING_SEPA_CREDIT_STATUSES)[number];

/** Why a credit was not taken at once: no partner account has its IBAN, or that account is not ACTIVE. */
export const UNMATCHED_REASONS = ['NO_ACCOUNT', 'ACCOUNT_NOT_ACTIVE'] as const;
export type UnmatchedReason = (typeof UNMATCHED_REASONS)[number];

/** A SEPA credit the bank booked on one of our accounts (a camt.054 entry), once per entry reference. */
export const IncomingSepaCredit = defineEntity({
  name: 'IncomingSepaCredit',
  tableName: 'incoming_sepa_credit',
  properties: {
    id: p.uuid().primary(),
    /** The bank's entry reference (NtryRef), unique. */
    entryRef: p.text().fieldName('entry_ref'),
    /** Our account the bank credited. */
    accountIban: p.text().fieldName('account_iban'),
    amount: p.type(new DecimalStringType(38, 2)),
    bookingDate: p.string().columnType('date').fieldName('booking_date').nullable(),
    valueDate: p.string().columnType('date').fieldName('value_date').nullable(),
    debtorName: p.text().fieldName('debtor_name'),
    debtorIban: p.text().fieldName('debtor_iban'),
    remittance: p.text().nullable(),
    /** The camt.054 message (GrpHdr/MsgId) that first brought it. */
    messageId: p.text().fieldName('message_id'),
    receivedAt: p.datetime().columnType('timestamptz').fieldName('received_at'),
    status: p.enum([...INCOMING_SEPA_CREDIT_STATUSES]),
    unmatchedReason: p
      .enum([...UNMATCHED_REASONS])
      .fieldName('unmatched_reason')
      .nullable(),
    partnerId: p.uuid().fieldName('partner_id').nullable(),
    depositId: p.uuid().fieldName('deposit_id').nullable(),
    suspenseTransferId: p.uuid().fieldName('suspense_transfer_id').nullable(),
    /** The return's payment id at the bank, and its ledger transfer's once settled. */
    returnId: p.uuid().fieldName('return_id').nullable(),
    returnBankReference: p.text().fieldName('return_bank_reference').nullable(),
    returnRequestedAt: p.datetime().columnType('timestamptz').fieldName('return_requested_at').nullable(),
    returnRejection: p.text().fieldName('return_rejection').nullable(),
    resolvedAt: p.datetime().columnType('timestamptz').fieldName('resolved_at').nullable(),
  },
});
export type IncomingSepaCredit = InferEntity<typeof IncomingSepaCredit>;
