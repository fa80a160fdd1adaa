/** A SEPA credit transfer as handed to the bank, built from a stored sepa_transfer row. */
export interface SepaPayment {
  transferId: string;
  /** ISO 20022 message id (MsgId), at most 35 characters, unique per message. */
  messageId: string;
  /** End-to-end id (EndToEndId), at most 35 characters; we use the transfer id without dashes. */
  endToEndId: string;
  /** Exact decimal string, two decimals, EUR. */
  amount: string;
  currency: 'EUR';
  debtor: { name: string; iban: string };
  creditor: { name: string; iban: string };
  remittanceInformation: string;
  /** YYYY-MM-DD */
  requestedExecutionDate: string;
  /** ISO 8601 creation time of the message. */
  createdAt: string;
}

export type BankPaymentState = { state: 'PENDING' } | { state: 'SETTLED' } | { state: 'REJECTED'; reason: string };

/** camt.054.001.08 documents notified since a cursor, unparsed (camt054-parser.ts reads them), and the adapter's opaque next cursor. */
export interface BankNotifications {
  documents: string[];
  /** After the last document returned; `since` itself when there was nothing new. */
  cursor: string | null;
}

/** The bank connection. Real adapters (EBICS, a bank's API) implement this same interface. */
export interface BankAdapter {
  /** Idempotent on transferId: submitting the same payment again returns the same reference. */
  submit(payment: SepaPayment, pain001Xml: string): Promise<{ bankReference: string }>;
  paymentState(bankReference: string): Promise<BankPaymentState>;
  /**
   * Notifications on our accounts after `since` (null: from the first), oldest first, a bounded batch. Reading changes nothing:
   * the same cursor returns the same documents, so the caller stores the new cursor once it has recorded what they hold.
   */
  fetchNotifications(since: string | null): Promise<BankNotifications>;
}

/** The bank does not know the reference: no retry will change that, an operator must look. */
export class UnknownBankReferenceError extends Error {
  override readonly name = 'UnknownBankReferenceError';
  constructor(bankReference: string) {
    super(`unknown bank reference ${bankReference}`);
  }
}
