import { defineEntity, p } from '@mikro-orm/core';
import type { InferEntity } from '@mikro-orm/core';
import { CURRENCIES } from '../../core/currencies';
import { DecimalStringType } from '../types/decimal-string.type';
import type { DepositType } from './deposit.entity';

export type ManualCreditStatus = 'PENDING' | 'APPROVED';

/**
 * A manual deposit, or the assignment of an unmatched incoming SEPA credit, waiting for a second operator (`ops deposit
 * approve`): above MANUAL_CREDIT_APPROVAL_ABOVE_EUR with what one operator credited alone lately, or (an assignment) to a
 * partner that does not own the IBAN the money came to.
 */
export const ManualCredit = defineEntity({
  name: 'ManualCredit',
  tableName: 'manual_credit',
  properties: {
    id: p.uuid().primary(),
    partnerId: p.uuid().fieldName('partner_id'),
    currency: p.enum([...CURRENCIES]),
    amount: p.type(new DecimalStringType()),
    /** At the configured rate when requested. */
    amountEur: p.type(new DecimalStringType()).fieldName('amount_eur'),
    type: p.enum(['sepaDeposit', 'fiatDeposit', 'cryptoDeposit'] satisfies DepositType[]),
    requestedBy: p.text().fieldName('requested_by'),
    requestedOsUser: p.text().fieldName('requested_os_user'),
    reason: p.text().nullable(),
    requestedAt: p.datetime().columnType('timestamptz').fieldName('requested_at'),
    status: p.enum(['PENDING', 'APPROVED'] satisfies ManualCreditStatus[]),
    approvedBy: p.text().fieldName('approved_by').nullable(),
    approvedOsUser: p.text().fieldName('approved_os_user').nullable(),
    approvedAt: p.datetime().columnType('timestamptz').fieldName('approved_at').nullable(),
    /** The deposit the approval posted. */
    transactionId: p.uuid().fieldName('transaction_id').nullable(),
    /** Set when this assigns an unmatched incoming SEPA credit: approved, it is credited out of suspense, not minted. */
    incomingEntryRef: p.text().fieldName('incoming_entry_ref').nullable(),
  },
});
export type ManualCredit = InferEntity<typeof ManualCredit>;
