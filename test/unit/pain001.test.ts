import type { SepaPayment } from '../../activities/adapters/bank/bank-adapter';
import { samplePayment } from '../support/sepa-payment.fixture';
import { buildPain001 } from '../../activities/adapters/bank/pain001';
import { SEPA_TEXT_PATTERN } from '../../core/payment-limits';

function payment(overrides: Partial<SepaPayment> = {}): SepaPayment {
  return samplePayment(overrides);
}

/** The text of the first element reached by a path of nested tags, whitespace between tags allowed. */
function textAt(xml: string, ...tags: string[]): string | undefined {
  const opening = tags.map((tag) => `<${tag}(?:\\s[^>]*)?>`).join('\\s*');
  return new RegExp(`${opening}([^<]*)</${tags[tags.length - 1]}>`).exec(xml)?.[1];
}

describe('buildPain001', () => {
  it('writes a pain.001.001.09 credit transfer initiation in the ISO 20022 namespace', () => {
    const xml = buildPain001(payment());
    expect(xml.startsWith('<?xml version="1.0" encoding="UTF-8"?>')).toBe(true);
    expect(xml).toContain('<Document xmlns="urn:iso:std:iso:20022:tech:xsd:pain.001.001.09">');
    expect(xml).toMatch(/<CstmrCdtTrfInitn>[\s\S]*<\/CstmrCdtTrfInitn>\s*<\/Document>\s*$/);
  });

  it('fills the group header with message id, creation time, one transaction, the control sum and the debtor as initiating party', () => {
    const xml = buildPain001(payment());
    expect(textAt(xml, 'GrpHdr', 'MsgId')).toBe('MSG-20260301-0001');
    expect(textAt(xml, 'CreDtTm')).toBe('2026-03-01T10:15:30.123Z');
    expect(xml).toMatch(
      /<GrpHdr>[\s\S]*<NbOfTxs>1<\/NbOfTxs>\s*<CtrlSum>1234\.50<\/CtrlSum>\s*<InitgPty>\s*<Nm>Partner Payments GmbH<\/Nm>/,
    );
  });

  it('fills the payment information block as a single SEPA transfer charged SLEV', () => {
    const xml = buildPain001(payment());
    expect(textAt(xml, 'PmtInf', 'PmtInfId')).toBe('MSG-20260301-0001');
    expect(textAt(xml, 'PmtMtd')).toBe('TRF');
    expect(textAt(xml, 'BtchBookg')).toBe('false');
    expect(xml).toMatch(/<BtchBookg>false<\/BtchBookg>\s*<NbOfTxs>1<\/NbOfTxs>\s*<CtrlSum>1234\.50<\/CtrlSum>/);
    expect(textAt(xml, 'PmtTpInf', 'SvcLvl', 'Cd')).toBe('SEPA');
    expect(textAt(xml, 'ReqdExctnDt', 'Dt')).toBe('2026-03-02');
    expect(textAt(xml, 'Dbtr', 'Nm')).toBe('Partner Payments GmbH');
    expect(textAt(xml, 'DbtrAcct', 'Id', 'IBAN')).toBe('DE89370400440532013000');
    expect(textAt(xml, 'DbtrAgt', 'FinInstnId', 'Othr', 'Id')).toBe('NOTPROVIDED');
    expect(textAt(xml, 'ChrgBr')).toBe('SLEV');
  });

  it('fills the transaction with end-to-end id, EUR amount, creditor, creditor IBAN and unstructured remittance text', () => {
    const xml = buildPain001(payment());
    expect(textAt(xml, 'CdtTrfTxInf', 'PmtId', 'EndToEndId')).toBe('5f0c1e2a3b4d4e5f8a9b0c1d2e3f4a5b');
    expect(xml).toContain('<Amt>\n          <InstdAmt Ccy="EUR">1234.50</InstdAmt>');
    expect(textAt(xml, 'Cdtr', 'Nm')).toBe('Jane Doe');
    expect(textAt(xml, 'CdtrAcct', 'Id', 'IBAN')).toBe('FR1420041010050500013M02606');
    expect(textAt(xml, 'RmtInf', 'Ustrd')).toBe('Invoice 2026/11-03');
  });

  it('orders the elements as the pain.001.001.09 schema sequences require', () => {
    const xml = buildPain001(payment());
    const order = [
      '<GrpHdr>',
      '<MsgId>',
      '<CreDtTm>',
      '<InitgPty>',
      '</GrpHdr>',
      '<PmtInf>',
      '<PmtInfId>',
      '<PmtMtd>',
      '<BtchBookg>',
      '<PmtTpInf>',
      '<ReqdExctnDt>',
      '<Dbtr>',
      '<DbtrAcct>',
      '<DbtrAgt>',
      '<ChrgBr>',
      '<CdtTrfTxInf>',
      '<PmtId>',
      '<Amt>',
      '<Cdtr>',
      '<CdtrAcct>',
      '<RmtInf>',
      '</CdtTrfTxInf>',
      '</PmtInf>',
    ];
    const positions = order.map((tag) => xml.indexOf(tag));
    expect(positions.every((position) => position >= 0)).toBe(true);
    expect([...positions].sort((a, b) => a - b)).toEqual(positions);
  });

  it.each(['0.01', '1234.50', '999999999.99', '100.00'])(
    'copies the amount %s digit for digit into InstdAmt and both control sums',
    (amount) => {
      const xml = buildPain001(payment({ amount }));
      expect(xml).toContain(`<InstdAmt Ccy="EUR">${amount}</InstdAmt>`);
      expect(xml.split(`<CtrlSum>${amount}</CtrlSum>`)).toHaveLength(3);
    },
  );

  it('escapes XML special characters in every text value', () => {
    // Creditor and remittance are held to the SEPA set, whose only XML special is the apostrophe;
    // the debtor (the partner's registered name) may carry any of them.
    const xml = buildPain001(
      payment({
        debtor: { name: `Smith & Sons <"Ltd"> 'UK'`, iban: 'DE89370400440532013000' },
        creditor: { name: "O'Brien", iban: 'FR1420041010050500013M02606' },
        remittanceInformation: "Invoice 'x'",
        messageId: "MSG'1",
      }),
    );
    expect(textAt(xml, 'InitgPty', 'Nm')).toBe('Smith &amp; Sons &lt;&quot;Ltd&quot;&gt; &apos;UK&apos;');
    expect(textAt(xml, 'Dbtr', 'Nm')).toBe('Smith &amp; Sons &lt;&quot;Ltd&quot;&gt; &apos;UK&apos;');
    expect(textAt(xml, 'Cdtr', 'Nm')).toBe('O&apos;Brien');
    expect(textAt(xml, 'Ustrd')).toBe('Invoice &apos;x&apos;');
    expect(textAt(xml, 'MsgId')).toBe('MSG&apos;1');
    expect(xml).not.toMatch(/&(?!amp;|lt;|gt;|quot;|apos;)/);
  });

  it('is pure: the same payment always gives the same document', () => {
    expect(buildPain001(payment())).toBe(buildPain001(payment()));
  });

  it.each(['10', '10.5', '10.000', '-1.00', '0.00', '00.10', '01.00', '1e3', '1,00', ' 1.00', '1.00 ', '+1.00', '1000000000.00', ''])(
    'refuses the amount "%s"',
    (amount) => {
      expect(() => buildPain001(payment({ amount }))).toThrow(/amount/);
    },
  );

  it('accepts identifiers, names and remittance text exactly at their maximum length, counted before escaping', () => {
    expect(() =>
      buildPain001(
        payment({
          messageId: 'M'.repeat(35),
          endToEndId: 'E'.repeat(35),
          debtor: { name: '&'.repeat(70), iban: 'DE89370400440532013000' },
          creditor: { name: 'C'.repeat(70), iban: 'FR1420041010050500013M02606' },
          remittanceInformation: "'".repeat(140),
        }),
      ),
    ).not.toThrow();
  });

  it.each<[string, Partial<SepaPayment>, RegExp]>([
    ['a 36-character MsgId', { messageId: 'M'.repeat(36) }, /messageId is longer than 35/],
    ['a 36-character EndToEndId', { endToEndId: 'E'.repeat(36) }, /endToEndId is longer than 35/],
    ['a 141-character Ustrd', { remittanceInformation: 'R'.repeat(141) }, /remittanceInformation is longer than 140/],
    ['a 71-character debtor name', { debtor: { name: 'D'.repeat(71), iban: 'DE89370400440532013000' } }, /debtor name is longer than 70/],
    [
      'a 71-character creditor name',
      { creditor: { name: 'C'.repeat(71), iban: 'FR1420041010050500013M02606' } },
      /creditor name is longer than 70/,
    ],
    ['an empty creditor name', { creditor: { name: '', iban: 'FR1420041010050500013M02606' } }, /creditor name must not be empty/],
    ['an empty Ustrd', { remittanceInformation: '' }, /remittanceInformation must not be empty/],
    [
      'an IBAN with a wrong checksum',
      { creditor: { name: 'Jane Doe', iban: 'DE88370400440532013000' } },
      /creditor IBAN is not a valid IBAN/,
    ],
    ['an IBAN with spaces', { debtor: { name: 'Partner', iban: 'DE89 3704 0044 0532 0130 00' } }, /debtor IBAN is not a valid IBAN/],
    ['an impossible execution date', { requestedExecutionDate: '2026-02-30' }, /requestedExecutionDate/],
    ['a creation time without a time', { createdAt: '2026-03-01' }, /createdAt/],
    ['an EndToEndId starting with a slash', { endToEndId: '/abc' }, /endToEndId contains characters SEPA does not allow/],
    ['a control character in the debtor name', { debtor: { name: 'Jane\u0001Doe', iban: 'DE89370400440532013000' } }, /XML cannot carry/],
    [
      'a character outside the SEPA set in the creditor name',
      { creditor: { name: 'A&B', iban: 'FR1420041010050500013M02606' } },
      /creditor name contains characters SEPA does not allow/,
    ],
    [
      'a character outside the SEPA set in the remittance',
      { remittanceInformation: 'Zahlung für Müller' },
      /remittanceInformation contains characters SEPA does not allow/,
    ],
  ])('refuses %s', (_label, overrides, message) => {
    expect(() => buildPain001(payment(overrides))).toThrow(message);
  });

  it('refuses a currency other than EUR even when the type is bypassed', () => {
    expect(() => buildPain001(payment({ currency: 'USD' as 'EUR' }))).toThrow(/EUR only/);
  });
});

describe('SEPA_TEXT_PATTERN', () => {
  it.each(['Invoice 2026/11-03', "O'Brien (Ltd.), ref: A+B?", 'a'])('accepts "%s" from the SEPA Latin character set', (text) => {
    expect(SEPA_TEXT_PATTERN.test(text)).toBe(true);
  });

  it.each(['Zahlung für Müller', 'a_b', '', 'x&y', 'line\nbreak', 'Ünïcödé'])('rejects "%s"', (text) => {
    expect(SEPA_TEXT_PATTERN.test(text)).toBe(false);
  });
});
