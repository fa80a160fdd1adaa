import { isValidIBAN } from 'ibantools';
import { Decimal } from '../../../core/money';
import { IBAN_ELECTRONIC_PATTERN, SEPA_MAX_AMOUNT, textLength } from '../../../core/payment-limits';
import { stringProblem } from '../../../core/text-safety';
import { xmlText } from './xml-text';

/**
 * ISO 20022 camt.054.001.08: what a bank sends when money is booked on our account. Written here for the simulated bank;
 * read by camt054-parser.ts.
 */
export const CAMT054_NAMESPACE = 'urn:iso:std:iso:20022:tech:xsd:camt.054.001.08';

/** Max35Text (MsgId, Ntfctn/Id, NtryRef) and Max140Text (names, unstructured remittance). */
export const CAMT_ID_MAX_LENGTH = 35;
export const CAMT_TEXT_MAX_LENGTH = 140;

/** A SEPA credit booked on one of our accounts, as the ingest needs it. */
export interface IncomingCredit {
  /** The bank's reference of the booking (NtryRef): the key that makes a second delivery a no-op. */
  entryRef: string;
  /** Our account that was credited (Ntfctn/Acct/Id/IBAN). */
  accountIban: string;
  /** Exact decimal, EUR, positive, at most two decimals. */
  amount: string;
  /** YYYY-MM-DD, null when the bank gave none. */
  bookingDate: string | null;
  valueDate: string | null;
  debtorName: string;
  debtorIban: string;
  remittance: string | null;
}

export interface Camt054Notification {
  /** Ntfctn/Id */
  id: string;
  accountIban: string;
  entries: readonly IncomingCredit[];
}

export interface Camt054Document {
  messageId: string;
  /** ISO 8601 creation time of the message. */
  createdAt: string;
  notifications: readonly Camt054Notification[];
}

const AMOUNT_PATTERN = /^(0|[1-9][0-9]{0,14})(\.[0-9]{1,2})?$/;
const DATE_PATTERN = /^\d{4}-\d{2}-\d{2}$/;

function requireText(field: string, value: string, maxLength: number): void {
  const length = textLength(value);
  if (length === 0 || length > maxLength) throw new Error(`${field} must be 1 to ${maxLength} characters`);
  const problem = stringProblem(value);
  if (problem) throw new Error(`${field} ${problem}`);
}

function requireIban(field: string, value: string): void {
  if (!IBAN_ELECTRONIC_PATTERN.test(value) || !isValidIBAN(value)) throw new Error(`${field} is not a valid IBAN`);
}

function requireDate(field: string, value: string | null): void {
  if (value !== null && (!DATE_PATTERN.test(value) || new Date(`${value}T00:00:00Z`).toISOString().slice(0, 10) !== value)) {
    throw new Error(`${field} must be a calendar date, YYYY-MM-DD`);
  }
}

/** Refuses what the parser would refuse: the simulated bank never writes a document the ingest must skip. */
export function checkIncomingCredit(credit: IncomingCredit): void {
  requireText('entryRef', credit.entryRef, CAMT_ID_MAX_LENGTH);
  requireIban('account IBAN', credit.accountIban);
  if (!AMOUNT_PATTERN.test(credit.amount) || new Decimal(credit.amount).lte(0) || new Decimal(credit.amount).gt(SEPA_MAX_AMOUNT)) {
    throw new Error(`amount must be a positive decimal with at most two decimals, at most ${SEPA_MAX_AMOUNT}`);
  }
  requireDate('bookingDate', credit.bookingDate);
  requireDate('valueDate', credit.valueDate);
  requireText('debtorName', credit.debtorName, CAMT_TEXT_MAX_LENGTH);
  requireIban('debtor IBAN', credit.debtorIban);
  if (credit.remittance !== null) requireText('remittance', credit.remittance, CAMT_TEXT_MAX_LENGTH);
}

function entryXml(entry: IncomingCredit): string {
  const t = xmlText;
  // Two decimals, as banks write EUR amounts.
  const amount = new Decimal(entry.amount).toFixed(2);
  const dates = [
    entry.bookingDate === null ? '' : `\n        <BookgDt>\n          <Dt>${t(entry.bookingDate)}</Dt>\n        </BookgDt>`,
    entry.valueDate === null ? '' : `\n        <ValDt>\n          <Dt>${t(entry.valueDate)}</Dt>\n        </ValDt>`,
  ].join('');
  const remittance =
    entry.remittance === null ? '' : `\n            <RmtInf>\n              <Ustrd>${t(entry.remittance)}</Ustrd>\n            </RmtInf>`;
  // Element order is the schema's (ReportEntry10, EntryTransaction10, TransactionParties6).
  return `
      <Ntry>
        <NtryRef>${t(entry.entryRef)}</NtryRef>
        <Amt Ccy="EUR">${amount}</Amt>
        <CdtDbtInd>CRDT</CdtDbtInd>
        <Sts>
          <Cd>BOOK</Cd>
        </Sts>${dates}
        <BkTxCd>
          <Domn>
            <Cd>PMNT</Cd>
            <Fmly>
              <Cd>RCDT</Cd>
              <SubFmlyCd>ESCT</SubFmlyCd>
            </Fmly>
          </Domn>
        </BkTxCd>
        <NtryDtls>
          <TxDtls>
            <Amt Ccy="EUR">${amount}</Amt>
            <CdtDbtInd>CRDT</CdtDbtInd>
            <RltdPties>
              <Dbtr>
                <Pty>
                  <Nm>${t(entry.debtorName)}</Nm>
                </Pty>
              </Dbtr>
              <DbtrAcct>
                <Id>
                  <IBAN>${t(entry.debtorIban)}</IBAN>
                </Id>
              </DbtrAcct>
            </RltdPties>${remittance}
          </TxDtls>
        </NtryDtls>
      </Ntry>`;
}

/** A notification per account with its booked SEPA credits; every value checked and escaped, so no text can change the structure. */
export function buildCamt054(document: Camt054Document): string {
  requireText('messageId', document.messageId, CAMT_ID_MAX_LENGTH);
  if (Number.isNaN(Date.parse(document.createdAt))) throw new Error('createdAt must be an ISO 8601 date-time');
  if (document.notifications.length === 0) throw new Error('a document holds at least one notification');
  const t = xmlText;
  const notifications = document.notifications.map((notification) => {
    requireText('notification id', notification.id, CAMT_ID_MAX_LENGTH);
    requireIban('account IBAN', notification.accountIban);
    for (const entry of notification.entries) {
      checkIncomingCredit(entry);
      if (entry.accountIban !== notification.accountIban) throw new Error('an entry belongs to the account of its notification');
    }
    return `
    <Ntfctn>
      <Id>${t(notification.id)}</Id>
      <CreDtTm>${t(document.createdAt)}</CreDtTm>
      <Acct>
        <Id>
          <IBAN>${t(notification.accountIban)}</IBAN>
        </Id>
        <Ccy>EUR</Ccy>
      </Acct>${notification.entries.map(entryXml).join('')}
    </Ntfctn>`;
  });
  return `<?xml version="1.0" encoding="UTF-8"?>
<Document xmlns="${CAMT054_NAMESPACE}">
  <BkToCstmrDbtCdtNtfctn>
    <GrpHdr>
      <MsgId>${t(document.messageId)}</MsgId>
      <CreDtTm>${t(document.createdAt)}</CreDtTm>
    </GrpHdr>${notifications.join('')}
  </BkToCstmrDbtCdtNtfctn>
</Document>
`;
}
