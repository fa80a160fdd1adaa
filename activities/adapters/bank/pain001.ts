import { isValidIBAN } from 'ibantools';
import { Decimal } from '../../../core/money';
import {
  IBAN_ELECTRONIC_PATTERN,
  SEPA_MAX_AMOUNT,
  SEPA_NAME_MAX_LENGTH,
  SEPA_REMITTANCE_MAX_LENGTH,
  SEPA_TEXT_PATTERN,
  textLength,
} from '../../../core/payment-limits';
import type { SepaPayment } from './bank-adapter';
import { xmlText } from './xml-text';

const NAMESPACE = 'urn:iso:std:iso:20022:tech:xsd:pain.001.001.09';

// EPC rulebook: exactly two decimals, no sign, no leading zeros; the range is compared exactly, never through a float.
const AMOUNT_PATTERN = /^(0|[1-9][0-9]*)\.[0-9]{2}$/;
// EPC identifiers (MsgId, PmtInfId, EndToEndId) are SEPA text that neither starts with '/' nor contains '//'.
const SEPA_ID_SLASH_RULE = /^(?!\/)(?!.*\/\/)/;
const DATE_PATTERN = /^(\d{4})-(\d{2})-(\d{2})$/;
const DATE_TIME_PATTERN = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})?$/;

/** Lengths count characters (code points), as the XML schema does, not UTF-16 units. */
function requireText(field: string, value: string, maxLength: number): void {
  const length = textLength(value);
  if (length === 0) throw new Error(`${field} must not be empty`);
  if (length > maxLength) throw new Error(`${field} is longer than ${maxLength} characters`);
}

function requireSepaText(field: string, value: string, maxLength: number): void {
  requireText(field, value, maxLength);
  if (!SEPA_TEXT_PATTERN.test(value)) throw new Error(`${field} contains characters SEPA does not allow`);
}

function requireSepaId(field: string, value: string): void {
  requireSepaText(field, value, 35);
  if (!SEPA_ID_SLASH_RULE.test(value)) throw new Error(`${field} contains characters SEPA does not allow`);
}

function requireIban(field: string, value: string): void {
  // Electronic format only (no spaces, upper case) with a valid checksum: what the schema expects.
  if (!IBAN_ELECTRONIC_PATTERN.test(value) || !isValidIBAN(value)) throw new Error(`${field} is not a valid IBAN`);
}

function requireDate(value: string): void {
  const match = DATE_PATTERN.exec(value);
  const [, year, month, day] = match ?? [];
  if (year === undefined || month === undefined || day === undefined) throw new Error('requestedExecutionDate must be YYYY-MM-DD');
  // Round-trip through UTC to refuse dates such as 2026-02-30.
  const date = new Date(Date.UTC(Number(year), Number(month) - 1, Number(day)));
  if (date.toISOString().slice(0, 10) !== value) throw new Error('requestedExecutionDate is not a calendar date');
}

function validate(payment: SepaPayment): void {
  if (payment.currency !== 'EUR') throw new Error('SEPA credit transfers are in EUR only');
  if (!AMOUNT_PATTERN.test(payment.amount) || payment.amount === '0.00' || new Decimal(payment.amount).gt(SEPA_MAX_AMOUNT)) {
    throw new Error(`amount must be a positive decimal with exactly two decimals, at most ${SEPA_MAX_AMOUNT}`);
  }
  requireSepaId('messageId', payment.messageId);
  requireSepaId('endToEndId', payment.endToEndId);
  // The debtor is the partner as an operator registered it: escaped, not held to the SEPA set as request text is.
  requireText('debtor name', payment.debtor.name, SEPA_NAME_MAX_LENGTH);
  requireSepaText('creditor name', payment.creditor.name, SEPA_NAME_MAX_LENGTH);
  requireSepaText('remittanceInformation', payment.remittanceInformation, SEPA_REMITTANCE_MAX_LENGTH);
  requireIban('debtor IBAN', payment.debtor.iban);
  requireIban('creditor IBAN', payment.creditor.iban);
  requireDate(payment.requestedExecutionDate);
  if (!DATE_TIME_PATTERN.test(payment.createdAt) || Number.isNaN(Date.parse(payment.createdAt))) {
    throw new Error('createdAt must be an ISO 8601 date-time');
  }
}

/** pain.001.001.09 for one SEPA credit transfer; pure, so a retried submission is identical. */
export function buildPain001(payment: SepaPayment): string {
  validate(payment);
  const t = xmlText;
  // One transaction per message, so the control sums equal the amount itself.
  const amount = t(payment.amount);
  return `<?xml version="1.0" encoding="UTF-8"?>
<Document xmlns="${NAMESPACE}">
  <CstmrCdtTrfInitn>
    <GrpHdr>
      <MsgId>${t(payment.messageId)}</MsgId>
      <CreDtTm>${t(payment.createdAt)}</CreDtTm>
      <NbOfTxs>1</NbOfTxs>
      <CtrlSum>${amount}</CtrlSum>
      <InitgPty>
        <Nm>${t(payment.debtor.name)}</Nm>
      </InitgPty>
    </GrpHdr>
    <PmtInf>
      <PmtInfId>${t(payment.messageId)}</PmtInfId>
      <PmtMtd>TRF</PmtMtd>
      <BtchBookg>false</BtchBookg>
      <NbOfTxs>1</NbOfTxs>
      <CtrlSum>${amount}</CtrlSum>
      <PmtTpInf>
        <SvcLvl>
          <Cd>SEPA</Cd>
        </SvcLvl>
      </PmtTpInf>
      <ReqdExctnDt>
        <Dt>${t(payment.requestedExecutionDate)}</Dt>
      </ReqdExctnDt>
      <Dbtr>
        <Nm>${t(payment.debtor.name)}</Nm>
      </Dbtr>
      <DbtrAcct>
        <Id>
          <IBAN>${t(payment.debtor.iban)}</IBAN>
        </Id>
      </DbtrAcct>
      <DbtrAgt>
        <FinInstnId>
          <Othr>
            <Id>NOTPROVIDED</Id>
          </Othr>
        </FinInstnId>
      </DbtrAgt>
      <ChrgBr>SLEV</ChrgBr>
      <CdtTrfTxInf>
        <PmtId>
          <EndToEndId>${t(payment.endToEndId)}</EndToEndId>
        </PmtId>
        <Amt>
          <InstdAmt Ccy="EUR">${amount}</InstdAmt>
        </Amt>
        <Cdtr>
          <Nm>${t(payment.creditor.name)}</Nm>
        </Cdtr>
        <CdtrAcct>
          <Id>
            <IBAN>${t(payment.creditor.iban)}</IBAN>
          </Id>
        </CdtrAcct>
        <RmtInf>
          <Ustrd>${t(payment.remittanceInformation)}</Ustrd>
        </RmtInf>
      </CdtTrfTxInf>
    </PmtInf>
  </CstmrCdtTrfInitn>
</Document>
`;
}
