import { XMLParser } from 'fast-xml-parser';
import { buildCamt054 } from '../../activities/adapters/bank/camt054';
import type { Camt054Document, IncomingCredit } from '../../activities/adapters/bank/camt054';
import { Camt054Refused, MAX_CAMT054_CHARS, MAX_CAMT054_ENTRIES, parseCamt054 } from '../../activities/adapters/bank/camt054-parser';
import { toSepaText } from '../../core/payment-limits';

const ACCOUNT = 'DE89370400440532013000';
const OTHER_ACCOUNT = 'DE02120300000000202051';
const DEBTOR = 'FR1420041010050500013M02606';

function credit(overrides: Partial<IncomingCredit> = {}): IncomingCredit {
  return {
    entryRef: 'NTRY-0001',
    accountIban: ACCOUNT,
    amount: '1250.50',
    bookingDate: '2026-11-26',
    valueDate: '2026-11-27',
    debtorName: 'Zoë Müller & Söhne <GmbH>',
    debtorIban: DEBTOR,
    remittance: 'Invoice 42 "Q4" & more',
    ...overrides,
  };
}

function documentOf(...notifications: Array<{ accountIban: string; entries: IncomingCredit[] }>): Camt054Document {
  return {
    messageId: 'MSG-1',
    createdAt: '2026-11-26T10:00:00.000Z',
    notifications: notifications.map((notification, index) => ({ id: `NTF-${index + 1}`, ...notification })),
  };
}

const oneCredit = (overrides: Partial<IncomingCredit> = {}) =>
  buildCamt054(documentOf({ accountIban: overrides.accountIban ?? ACCOUNT, entries: [credit(overrides)] }));

function refusal(xml: string): string {
  try {
    parseCamt054(xml);
  } catch (error) {
    if (error instanceof Camt054Refused) return error.message;
    throw error;
  }
  throw new Error('the document was not refused');
}

/**
 * The schema's sequences (camt.054.001.08) for the elements the simulated bank writes: every
 * element's children must come in this order (each list is the whole sequence; optional ones we
 * leave out are simply absent). No copy of the official XSD is at hand offline, so this checks the
 * order the XSD prescribes, and the round trips below check the fields the parser requires.
 */
const SEQUENCES: Readonly<Record<string, readonly string[]>> = {
  Document: ['BkToCstmrDbtCdtNtfctn'],
  BkToCstmrDbtCdtNtfctn: ['GrpHdr', 'Ntfctn', 'SplmtryData'],
  GrpHdr: ['MsgId', 'CreDtTm', 'MsgRcpt', 'MsgPgntn', 'OrgnlBizQry', 'AddtlInf'],
  Ntfctn: [
    'Id',
    'NtfctnPgntn',
    'ElctrncSeqNb',
    'RptgSeq',
    'LglSeqNb',
    'CreDtTm',
    'FrToDt',
    'CpyDplctInd',
    'RptgSrc',
    'Acct',
    'RltdAcct',
    'Intrst',
    'TxsSummry',
    'Ntry',
    'AddtlNtfctnInf',
  ],
  Acct: ['Id', 'Tp', 'Ccy', 'Nm', 'Prxy', 'Ownr', 'Svcr'],
  Ntry: [
    'NtryRef',
    'Amt',
    'CdtDbtInd',
    'RvslInd',
    'Sts',
    'BookgDt',
    'ValDt',
    'AcctSvcrRef',
    'Avlbty',
    'BkTxCd',
    'ComssnWvrInd',
    'AddtlInfInd',
    'AmtDtls',
    'Chrgs',
    'TechInptChanl',
    'Intrst',
    'CardTx',
    'NtryDtls',
    'AddtlNtryInf',
  ],
  BkTxCd: ['Domn', 'Prtry'],
  Domn: ['Cd', 'Fmly'],
  Fmly: ['Cd', 'SubFmlyCd'],
  NtryDtls: ['Btch', 'TxDtls'],
  TxDtls: [
    'Refs',
    'Amt',
    'CdtDbtInd',
    'AmtDtls',
    'Avlbty',
    'BkTxCd',
    'Chrgs',
    'Intrst',
    'RltdPties',
    'RltdAgts',
    'LclInstrm',
    'Purp',
    'RltdRmtInf',
    'RmtInf',
  ],
  RltdPties: ['InitgPty', 'Dbtr', 'DbtrAcct', 'UltmtDbtr', 'Cdtr', 'CdtrAcct', 'UltmtCdtr', 'TradgPty', 'Prtry'],
  Dbtr: ['Pty', 'Agt'],
  Pty: ['Nm', 'PstlAdr', 'Id', 'CtryOfRes', 'CtctDtls'],
  DbtrAcct: ['Id', 'Tp', 'Ccy', 'Nm', 'Prxy'],
  RmtInf: ['Ustrd', 'Strd'],
};

type Ordered = Array<Record<string, unknown>>;

/** Elements whose children leave their schema sequence, as `parent: child after sibling`. */
function orderProblems(nodes: Ordered, parent = '(root)'): string[] {
  const problems: string[] = [];
  const sequence = SEQUENCES[parent];
  let position = -1;
  for (const node of nodes) {
    const name = Object.keys(node).find((key) => key !== ':@');
    if (name === undefined || name === '#text' || name === '?xml') continue;
    if (sequence) {
      const index = sequence.indexOf(name);
      if (index < position || index === -1) problems.push(`${parent}: ${name} out of the schema's sequence`);
      position = Math.max(position, index);
    }
    problems.push(...orderProblems(node[name] as Ordered, name));
  }
  return problems;
}

describe('the simulated bank’s camt.054.001.08', () => {
  it('is in the camt.054.001.08 namespace, every element in its schema sequence, entries booked SEPA credits (PMNT/RCDT/ESCT)', () => {
    const xml = oneCredit();
    expect(xml).toContain('<Document xmlns="urn:iso:std:iso:20022:tech:xsd:camt.054.001.08">');
    const ordered = new XMLParser({ preserveOrder: true, ignoreAttributes: false, processEntities: false }).parse(xml) as Ordered;
    expect(orderProblems(ordered)).toEqual([]);
    expect(xml).toMatch(/<Amt Ccy="EUR">1250\.50<\/Amt>\s*<CdtDbtInd>CRDT<\/CdtDbtInd>\s*<Sts>\s*<Cd>BOOK<\/Cd>/);
    expect(xml).toMatch(/<Domn>\s*<Cd>PMNT<\/Cd>\s*<Fmly>\s*<Cd>RCDT<\/Cd>\s*<SubFmlyCd>ESCT<\/SubFmlyCd>/);
  });

  it('escapes every text, so a name or remittance cannot add elements', () => {
    const xml = oneCredit({ debtorName: '</Nm><IBAN>DE00</IBAN>', remittance: `a'b"c<d>&e` });
    expect(xml).toContain('<Nm>&lt;/Nm&gt;&lt;IBAN&gt;DE00&lt;/IBAN&gt;</Nm>');
    expect(xml).toContain('<Ustrd>a&apos;b&quot;c&lt;d&gt;&amp;e</Ustrd>');
  });

  it('refuses what the parser would skip: a bad IBAN, three decimals, a zero amount, an empty name, a reference over 35', () => {
    expect(() => oneCredit({ debtorIban: 'FR1420041010050500013M02607' })).toThrow(/debtor IBAN/);
    expect(() => oneCredit({ amount: '1.005' })).toThrow(/amount/);
    expect(() => oneCredit({ amount: '0.00' })).toThrow(/amount/);
    expect(() => oneCredit({ debtorName: '' })).toThrow(/debtorName/);
    expect(() => oneCredit({ entryRef: 'R'.repeat(36) })).toThrow(/entryRef/);
  });
});

describe('parseCamt054', () => {
  it('reads back what the simulated bank wrote (round trip), entities decoded and amounts to the cent', () => {
    const parsed = parseCamt054(oneCredit());
    expect(parsed).toEqual({ messageId: 'MSG-1', credits: [{ ...credit(), amount: '1250.50' }], skipped: [] });
    expect(parseCamt054(oneCredit({ amount: '7', remittance: null, bookingDate: null, valueDate: null })).credits).toEqual([
      { ...credit(), amount: '7.00', remittance: null, bookingDate: null, valueDate: null },
    ]);
  });

  it("refuses, as the document's refusal, a root namespace with a bare & or an entity reference (never another error)", () => {
    for (const namespace of ['urn:iso&x', '&ns;', 'urn:&#0;']) {
      const xml = oneCredit().replace(/xmlns="[^"]+"/, `xmlns="${namespace}"`);
      expect(() => parseCamt054(xml)).toThrow(Camt054Refused);
    }
  });

  it('reads several entries per notification, and several notifications per document, each entry with its own account', () => {
    const xml = buildCamt054(
      documentOf(
        { accountIban: ACCOUNT, entries: [credit({ entryRef: 'A1' }), credit({ entryRef: 'A2', amount: '0.01' })] },
        { accountIban: OTHER_ACCOUNT, entries: [credit({ entryRef: 'B1', accountIban: OTHER_ACCOUNT })] },
      ),
    );
    const parsed = parseCamt054(xml);
    expect(parsed.credits.map(({ entryRef, accountIban, amount }) => ({ entryRef, accountIban, amount }))).toEqual([
      { entryRef: 'A1', accountIban: ACCOUNT, amount: '1250.50' },
      { entryRef: 'A2', accountIban: ACCOUNT, amount: '0.01' },
      { entryRef: 'B1', accountIban: OTHER_ACCOUNT, amount: '1250.50' },
    ]);
    expect(parsed.skipped).toEqual([]);
  });

  it('reads a document whose elements carry a namespace prefix, and decodes character references', () => {
    const prefixed = oneCredit({ debtorName: 'Anna' })
      .replace(/<(\/?)([A-Za-z]+)([\s>])/g, '<$1c:$2$3')
      .replace('xmlns=', 'xmlns:c=')
      .replace('<c:Nm>Anna</c:Nm>', '<c:Nm>&#65;nn&#x61;</c:Nm>');
    expect(parseCamt054(prefixed).credits[0]).toMatchObject({ entryRef: 'NTRY-0001', debtorName: 'Anna' });
  });

  it('skips a debit (DBIT) and an entry not booked, and keeps reading the others', () => {
    const xml = buildCamt054(
      documentOf({ accountIban: ACCOUNT, entries: [credit({ entryRef: 'D1' }), credit({ entryRef: 'P1' }), credit({ entryRef: 'C1' })] }),
    );
    const edited = xml
      .replace(/(<NtryRef>D1<\/NtryRef>\s*<Amt Ccy="EUR">[^<]*<\/Amt>\s*)<CdtDbtInd>CRDT/, '$1<CdtDbtInd>DBIT')
      .replace(/(<NtryRef>P1<\/NtryRef>[\s\S]*?<Cd>)BOOK/, '$1PDNG');
    const parsed = parseCamt054(edited);
    expect(parsed.credits.map((entry) => entry.entryRef)).toEqual(['C1']);
    expect(parsed.skipped).toEqual([
      { reference: 'D1', reason: 'a debit (DBIT): not an incoming credit' },
      { reference: 'P1', reason: 'status "PDNG": not booked' },
    ]);
  });

  it.each([
    ['an amount with three decimals', (xml: string) => xml.replace(/1250\.50/g, '1250.505'), /amount/],
    ['an amount that is not a number', (xml: string) => xml.replace(/1250\.50/g, '12,50'), /amount/],
    ['a negative amount', (xml: string) => xml.replace(/1250\.50/g, '-1250.50'), /amount/],
    ['another currency', (xml: string) => xml.replace(/Ccy="EUR">1250/, 'Ccy="USD">1250'), /currency "USD", not EUR/],
    ['a debtor IBAN with a wrong checksum', (xml: string) => xml.replace(DEBTOR, 'FR1420041010050500013M02607'), /debtor IBAN/],
    ['no debtor account', (xml: string) => xml.replace(/<DbtrAcct>[\s\S]*<\/DbtrAcct>/, ''), /DbtrAcct is missing/],
    ['an entity no DTD declares', (xml: string) => xml.replace('Zoë', 'Zo&euml;'), /&euml;/],
    ['a character reference XML forbids', (xml: string) => xml.replace('Zoë', 'Zo&#0;'), /&#0;/],
    ['two transactions in one entry', (xml: string) => xml.replace(/(<TxDtls>[\s\S]*<\/TxDtls>)/, '$1$1'), /2 transactions/],
    [
      'an unknown credit/debit indicator',
      (xml: string) => xml.replace(/<CdtDbtInd>CRDT<\/CdtDbtInd>/, '<CdtDbtInd>BOTH</CdtDbtInd>'),
      /CdtDbtInd/,
    ],
  ])('skips an entry with %s, logged by its reference, and reads the next', (_case, edit, reason) => {
    const xml = buildCamt054(
      documentOf({ accountIban: ACCOUNT, entries: [credit(), credit({ entryRef: 'NEXT', amount: '5.00', debtorName: 'Ok' })] }),
    );
    const [first, second] = xml.split('<NtryRef>NEXT</NtryRef>');
    const parsed = parseCamt054(`${edit(first!)}<NtryRef>NEXT</NtryRef>${second!}`);
    expect(parsed.credits.map((entry) => entry.entryRef)).toEqual(['NEXT']);
    expect(parsed.skipped).toHaveLength(1);
    expect(parsed.skipped[0]!.reference).toBe('NTRY-0001');
    expect(parsed.skipped[0]!.reason).toMatch(/^malformed: /);
    expect(parsed.skipped[0]!.reason).toMatch(reason);
  });

  it('skips the entries of a notification whose account IBAN is not one, and reads the next notification', () => {
    const xml = buildCamt054(
      documentOf(
        { accountIban: ACCOUNT, entries: [credit({ entryRef: 'A1' })] },
        { accountIban: OTHER_ACCOUNT, entries: [credit({ entryRef: 'B1', accountIban: OTHER_ACCOUNT })] },
      ),
    ).replace(`<IBAN>${ACCOUNT}</IBAN>`, '<IBAN>DE00NOTANIBAN</IBAN>');
    const parsed = parseCamt054(xml);
    expect(parsed.credits.map((entry) => entry.entryRef)).toEqual(['B1']);
    expect(parsed.skipped).toEqual([{ reference: 'A1', reason: 'malformed: account IBAN is not a valid IBAN' }]);
  });

  it('names an entry without a readable reference by its place in the message', () => {
    const xml = oneCredit().replace('<NtryRef>NTRY-0001</NtryRef>', '');
    expect(parseCamt054(xml).skipped).toEqual([{ reference: 'MSG-1/1/1', reason: 'malformed: Ntry/NtryRef is missing' }]);
  });

  it('refuses, before parsing, a document with a DTD: internal entities (billion laughs) and external ones', () => {
    const laughs = `<?xml version="1.0"?><!DOCTYPE lolz [<!ENTITY lol "lol"><!ENTITY lol2 "&lol;&lol;&lol;&lol;&lol;">]><Document xmlns="urn:iso:std:iso:20022:tech:xsd:camt.054.001.08">&lol2;</Document>`;
    expect(refusal(laughs)).toMatch(/DTD/);
    const external = oneCredit().replace(
      '<?xml version="1.0" encoding="UTF-8"?>',
      '<?xml version="1.0"?><!DOCTYPE Document SYSTEM "file:///etc/passwd">',
    );
    expect(refusal(external)).toMatch(/DTD/);
    expect(refusal(oneCredit().replace('Zoë', '<!ENTITY x "y">'))).toMatch(/DTD/);
  });

  it('refuses a document over the size bound unread, and one with more entries than the bound', () => {
    expect(refusal(oneCredit() + ' '.repeat(MAX_CAMT054_CHARS))).toMatch(/over 2000000/);
    const entries = Array.from({ length: MAX_CAMT054_ENTRIES + 1 }, (_, index) => credit({ entryRef: `E${index}`, remittance: null }));
    // Without the indentation, so the entries stay under the size bound.
    const compact = buildCamt054(documentOf({ accountIban: ACCOUNT, entries })).replace(/>\s+</g, '><');
    expect(compact.length).toBeLessThan(MAX_CAMT054_CHARS);
    expect(refusal(compact)).toMatch(/2001 entries, over 2000/);
  });

  it('refuses a document that is not well-formed, not camt.054.001.08, or has CDATA', () => {
    expect(refusal(oneCredit().replace('</Nm>', ''))).toMatch(/not well-formed/);
    expect(refusal(oneCredit().replace('camt.054.001.08', 'camt.053.001.08'))).toMatch(/not a camt.054.001.08 document/);
    expect(refusal('<Other xmlns="urn:iso:std:iso:20022:tech:xsd:camt.054.001.08"/>')).toMatch(/not a single Document/);
    expect(refusal(oneCredit().replace('Zoë', '<![CDATA[Zoë]]>'))).toMatch(/CDATA/);
    expect(refusal(oneCredit().replace(/<GrpHdr>[\s\S]*?<\/GrpHdr>/, ''))).toMatch(/GrpHdr is missing/);
  });
});

describe('toSepaText', () => {
  it('keeps a SEPA name, takes the accents off letters, blanks the rest, cuts at the length', () => {
    expect(toSepaText('Zoë Müller-Łukasz & Co.', 70)).toBe('Zoe Muller- ukasz Co.');
    expect(toSepaText('李小龍', 70)).toBe('NOTPROVIDED');
    expect(toSepaText('A'.repeat(80), 70)).toHaveLength(70);
  });
});
