import { p } from '@mikro-orm/core';

/** The columns a crypto withdrawal and a SEPA transfer share (activities/outgoing-payment.steps.ts). */
export const outgoingPaymentColumns = {
  failureReason: p.text().fieldName('failure_reason').nullable(),
  /** Set before the chain or bank is called: from then on the money may have left. */
  handedOffAt: p.datetime().columnType('timestamptz').fieldName('handed_off_at').nullable(),
  /** The chain's or bank's definite answer that the money did not leave; only it may release after hand-off. */
  externalRejection: p.text().fieldName('external_rejection').nullable(),
  /** An operator asked to cancel after the hand-off: recorded, the money waits for the answer. */
  cancelRequestedAt: p.datetime().columnType('timestamptz').fieldName('cancel_requested_at').nullable(),
  createdAt: p.datetime().columnType('timestamptz').defaultRaw('now()').fieldName('created_at'),
  updatedAt: p.datetime().columnType('timestamptz').defaultRaw('now()').fieldName('updated_at'),
};
