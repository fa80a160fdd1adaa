import { XMLParser, XMLValidator } from 'fast-xml-parser';
import { stringProblem } from '../../../core/text-safety';
import { CAMT054_NAMESPACE, CAMT_ID_MAX_LENGTH, CAMT_TEXT_MAX_LENGTH, checkIncomingCredit } from './camt054';
import type { IncomingCredit } from './camt054';
import { isXmlChar } from './xml-text';

/**
 * Reads only what the ingest needs from a bank's camt.054.001.08, each value checked (checkIncomingCredit). Bounded and
 * inert: an oversized document or one with a DTD is refused unparsed, so no entity is ever declared; the five predefined
 * ones and character references are decoded here. A bad document throws Camt054Refused; a bad entry is skipped with its reason.
 */
export const MAX_CAMT054_CHARS = 2_000_000;
export const MAX_CAMT054_ENTRIES = 2_000;

export class Camt054Refused extends Error {
  override readonly name = 'Camt054Refused';
}

/** An entry that is not a booked SEPA credit we can take (a debit, pending, malformed), and why. */
export interface SkippedEntry {
  /** Its NtryRef when it has a readable one, else its place: `MsgId/notification/entry` (1-based). */
  reference: string;
  reason: string;
}

export interface ParsedCamt054 {
  messageId: string;
  credits: IncomingCredit[];
  skipped: SkippedEntry[];
}

type XmlNode = string | { [name: string]: XmlNode | XmlNode[] };

class Malformed extends Error {}

/** A value quoted in a reason: short, so a hostile document cannot fill a log line. */
function shown(value: string): string {
  return JSON.stringify(value.length > 40 ? `${value.slice(0, 40)}…` : value);
}

// No entity decoding, no number guessing: values stay the exact text the bank wrote.
const parser = new XMLParser({
  ignoreAttributes: false,
  attributeNamePrefix: '@',
  parseTagValue: false,
  parseAttributeValue: false,
  processEntities: false,
  trimValues: true,
  ignoreDeclaration: true,
  ignorePiTags: true,
});

const PREDEFINED: Readonly<Record<string, string>> = { lt: '<', gt: '>', amp: '&', quot: '"', apos: "'" };

/** XML's predefined entities and character references; anything else would need a DTD, which is refused. */
function decodeText(raw: string): string {
  return raw.replace(/&([^;&]{0,10});?/g, (match, name: string) => {
    if (!match.endsWith(';')) throw new Malformed('a bare "&" in text');
    const predefined = PREDEFINED[name];
    if (predefined !== undefined) return predefined;
    const reference = /^#(?:x([0-9a-fA-F]{1,6})|([0-9]{1,7}))$/.exec(name);
    const codePoint = reference ? parseInt(reference[1] ?? reference[2]!, reference[1] ? 16 : 10) : NaN;
    if (!isXmlChar(codePoint)) throw new Malformed(`the reference &${name}; is not a character XML allows without a DTD`);
    return String.fromCodePoint(codePoint);
  });
}

/** Element access in the document's own prefix (`Document` or `ns:Document` throughout). */
class Reader {
  constructor(private readonly prefix: string) {}

  all(node: XmlNode, name: string): XmlNode[] {
    if (typeof node === 'string') return [];
    const found = Object.hasOwn(node, this.prefix + name) ? node[this.prefix + name] : undefined;
    return found === undefined ? [] : Array.isArray(found) ? found : [found];
  }

  optional(node: XmlNode, name: string, path: string): XmlNode | undefined {
    const found = this.all(node, name);
    if (found.length > 1) throw new Malformed(`${path}/${name} appears ${found.length} times`);
    return found[0];
  }

  one(node: XmlNode, name: string, path: string): XmlNode {
    const found = this.optional(node, name, path);
    if (found === undefined) throw new Malformed(`${path}/${name} is missing`);
    return found;
  }

  /** The text at a path below node, e.g. text(entry, ['Amt']). */
  text(node: XmlNode, names: readonly string[], path: string): string {
    return this.optionalText(node, names, path, true)!;
  }

  optionalText(node: XmlNode, names: readonly string[], path: string, required = false): string | undefined {
    let current: XmlNode | undefined = node;
    let at = path;
    for (const name of names) {
      current = required ? this.one(current, name, at) : this.optional(current, name, at);
      if (current === undefined) return undefined;
      at = `${at}/${name}`;
    }
    return textOf(current, at);
  }
}

function textOf(node: XmlNode, path: string): string {
  if (typeof node === 'string') return decodeText(node);
  const keys = Object.keys(node).filter((key) => !key.startsWith('@'));
  const text = node['#text'];
  if (keys.some((key) => key !== '#text') || Array.isArray(text)) throw new Malformed(`${path} holds elements, not text`);
  return decodeText(typeof text === 'string' ? text : '');
}

function attributeOf(node: XmlNode, name: string): string | undefined {
  if (typeof node === 'string') return undefined;
  const value = node[`@${name}`];
  return typeof value === 'string' ? decodeText(value) : undefined;
}

/** The document's root and the prefix its elements use, after checking it is a camt.054.001.08 Document. */
function rootOf(tree: Record<string, XmlNode>): { root: XmlNode; prefix: string } {
  const names = Object.keys(tree);
  const name = names[0];
  if (names.length !== 1 || name === undefined || !/^([A-Za-z_][\w.-]*:)?Document$/.test(name)) {
    throw new Camt054Refused('the root element is not a single Document');
  }
  const prefix = name.slice(0, -'Document'.length);
  const root = tree[name]!;
  const namespace = attributeOf(root, prefix === '' ? 'xmlns' : `xmlns:${prefix.slice(0, -1)}`);
  if (namespace !== CAMT054_NAMESPACE)
    throw new Camt054Refused(`not a camt.054.001.08 document (namespace ${namespace === undefined ? 'none' : shown(namespace)})`);
  return { root, prefix };
}

/** A date from a DateAndDateTime2Choice (Dt, or the date of DtTm), or null when absent. */
function dateOf(read: Reader, entry: XmlNode, name: string, path: string): string | null {
  const choice = read.optional(entry, name, path);
  if (choice === undefined) return null;
  const date = read.optionalText(choice, ['Dt'], `${path}/${name}`) ?? read.optionalText(choice, ['DtTm'], `${path}/${name}`)?.slice(0, 10);
  if (date === undefined) throw new Malformed(`${path}/${name} has neither Dt nor DtTm`);
  return date;
}

/** One entry: a credit, or the reason it is skipped. */
function readEntry(read: Reader, entry: XmlNode, accountIban: string, path: string): IncomingCredit | { skip: string } {
  const entryRef = read.text(entry, ['NtryRef'], path);
  const indicator = read.text(entry, ['CdtDbtInd'], path);
  if (indicator === 'DBIT') return { skip: 'a debit (DBIT): not an incoming credit' };
  if (indicator !== 'CRDT') throw new Malformed(`CdtDbtInd is ${shown(indicator)}, not CRDT or DBIT`);
  const status = read.optionalText(entry, ['Sts', 'Cd'], path);
  if (status !== 'BOOK') return { skip: `status ${status === undefined ? '(none)' : shown(status)}: not booked` };
  const amountNode = read.one(entry, 'Amt', path);
  const currency = attributeOf(amountNode, 'Ccy');
  if (currency !== 'EUR') throw new Malformed(`currency ${currency === undefined ? '(none)' : shown(currency)}, not EUR`);
  const transactions = read.all(entry, 'NtryDtls').flatMap((details) => read.all(details, 'TxDtls'));
  if (transactions.length !== 1) throw new Malformed(`${transactions.length} transactions in the entry; one per entry is read`);
  const transaction = transactions[0]!;
  const at = `${path}/NtryDtls/TxDtls`;
  const parties = read.one(transaction, 'RltdPties', at);
  const remittanceInfo = read.optional(transaction, 'RmtInf', at);
  const lines = remittanceInfo === undefined ? [] : read.all(remittanceInfo, 'Ustrd').map((line) => textOf(line, `${at}/RmtInf/Ustrd`));
  // SEPA carries one Ustrd of 140; should a bank send more, the text is informational: joined and cut, never a reason to skip money.
  const remittance = Array.from(lines.join(' ').trim()).slice(0, CAMT_TEXT_MAX_LENGTH).join('');
  const credit: IncomingCredit = {
    entryRef,
    accountIban,
    amount: textOf(amountNode, `${path}/Amt`),
    bookingDate: dateOf(read, entry, 'BookgDt', path),
    valueDate: dateOf(read, entry, 'ValDt', path),
    debtorName: read.text(parties, ['Dbtr', 'Pty', 'Nm'], `${at}/RltdPties`),
    debtorIban: read.text(parties, ['DbtrAcct', 'Id', 'IBAN'], `${at}/RltdPties`),
    remittance: remittance === '' ? null : remittance,
  };
  try {
    checkIncomingCredit(credit);
  } catch (error) {
    throw new Malformed(error instanceof Error ? error.message : String(error));
  }
  return credit;
}

function refusePreamble(xml: string): void {
  if (typeof xml !== 'string') throw new Camt054Refused('a document is text');
  if (xml.length > MAX_CAMT054_CHARS) throw new Camt054Refused(`the document is ${xml.length} characters, over ${MAX_CAMT054_CHARS}`);
  // Before any parsing: no DTD, so no entity can be declared (billion laughs, external entities).
  if (/<!DOCTYPE/i.test(xml) || /<!ENTITY/i.test(xml)) throw new Camt054Refused('a document with a DTD (DOCTYPE or ENTITY) is refused');
  // CDATA text would be taken raw; ISO 20022 messages carry none.
  if (xml.includes('<![CDATA[')) throw new Camt054Refused('a document with a CDATA section is refused');
  const wellFormed = XMLValidator.validate(xml);
  if (wellFormed !== true) throw new Camt054Refused(`not well-formed XML: ${wellFormed.err.msg} (line ${wellFormed.err.line})`);
}

/** Anything that goes wrong inside one document is that document's refusal: never an error that stops the ingest. */
export function parseCamt054(xml: string): ParsedCamt054 {
  try {
    return parseDocument(xml);
  } catch (error) {
    if (error instanceof Camt054Refused) throw error;
    throw new Camt054Refused(`not readable: ${error instanceof Error ? error.message : String(error)}`);
  }
}

function parseDocument(xml: string): ParsedCamt054 {
  refusePreamble(xml);
  let tree: Record<string, XmlNode>;
  try {
    tree = parser.parse(xml) as Record<string, XmlNode>;
  } catch (error) {
    throw new Camt054Refused(`not readable: ${error instanceof Error ? error.message : String(error)}`);
  }
  const { root, prefix } = rootOf(tree);
  const read = new Reader(prefix);
  let messageId: string;
  let notifications: XmlNode[];
  try {
    const message = read.one(root, 'BkToCstmrDbtCdtNtfctn', 'Document');
    messageId = read.text(message, ['GrpHdr', 'MsgId'], 'Document/BkToCstmrDbtCdtNtfctn');
    if (messageId.length === 0 || messageId.length > CAMT_ID_MAX_LENGTH || stringProblem(messageId))
      throw new Malformed('GrpHdr/MsgId is not a Max35Text');
    notifications = read.all(message, 'Ntfctn');
  } catch (error) {
    throw new Camt054Refused(error instanceof Error ? error.message : String(error));
  }
  const entryCount = notifications.reduce((sum, notification) => sum + read.all(notification, 'Ntry').length, 0);
  if (entryCount > MAX_CAMT054_ENTRIES) throw new Camt054Refused(`${entryCount} entries, over ${MAX_CAMT054_ENTRIES}`);

  const credits: IncomingCredit[] = [];
  const skipped: SkippedEntry[] = [];
  notifications.forEach((notification, notificationIndex) => {
    const place = `${messageId}/${notificationIndex + 1}`;
    const entries = read.all(notification, 'Ntry');
    let accountIban: string | undefined;
    let accountProblem: string | undefined;
    try {
      accountIban = read.text(notification, ['Acct', 'Id', 'IBAN'], 'Ntfctn');
    } catch (error) {
      accountProblem = error instanceof Error ? error.message : String(error);
    }
    entries.forEach((entry, entryIndex) => {
      let reference = `${place}/${entryIndex + 1}`;
      try {
        const entryRef = read.optionalText(entry, ['NtryRef'], 'Ntry');
        // Only a plausible reference goes into a log line; anything else is named by its place.
        if (entryRef && entryRef.length <= CAMT_ID_MAX_LENGTH && !stringProblem(entryRef)) reference = entryRef;
      } catch {
        // Its NtryRef is unreadable: its place names it.
      }
      try {
        if (accountIban === undefined) throw new Malformed(`its notification's account: ${accountProblem ?? 'missing'}`);
        const outcome = readEntry(read, entry, accountIban, 'Ntry');
        if ('skip' in outcome) skipped.push({ reference, reason: outcome.skip });
        else credits.push(outcome);
      } catch (error) {
        if (!(error instanceof Malformed)) throw error;
        skipped.push({ reference, reason: `malformed: ${error.message}` });
      }
    });
  });
  return { messageId, credits, skipped };
}
