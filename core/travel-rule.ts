/** Travel-rule data (EU 2023/1113) in the IVMS101 shape. Pure: workflow code builds and checks it during replay. */
import type { WalletType } from './counterparty';

export interface NaturalPersonOriginator {
  kind: 'NATURAL';
  firstName: string;
  lastName: string;
  address: string;
  city: string;
  country: string;
  documentType: string;
  documentNumber: string;
  birthDate: string | null;
  birthCountry: string | null;
  customerId: string;
}

export interface LegalPersonOriginator {
  kind: 'LEGAL';
  name: string;
  customerId: string;
}

export type Originator = NaturalPersonOriginator | LegalPersonOriginator;

export type { WalletType } from './counterparty';

export interface Beneficiary {
  name: string;
  receiverType: 'NATURAL' | 'LEGAL';
  walletType: WalletType;
  walletAddress: string;
}

/** Amounts are decimal strings; amountEur is this transfer's EUR value at its acceptance. */
export interface TravelRuleTransfer {
  currency: string;
  network: string;
  amount: string;
  amountEur: string;
  /** The partner's EUR sum to this destination over 24 hours, this one included: a split transfer crosses the threshold too. */
  destinationEurLast24h?: string;
}

/** IVMS101 codes: LEGL legal name; CCPT passport, IDCD identity card, DRLC driving licence. */
export type Ivms101NationalIdentifierType = 'CCPT' | 'IDCD' | 'DRLC' | 'MISC';

export interface Ivms101NaturalPersonName {
  primaryIdentifier: string;
  secondaryIdentifier?: string;
  nameIdentifierType: 'LEGL';
}

export interface Ivms101NaturalPerson {
  naturalPerson: {
    name: { nameIdentifier: Ivms101NaturalPersonName[] };
    geographicAddress?: { addressType: 'HOME'; addressLine: string[]; townName: string; country: string }[];
    nationalIdentification?: { nationalIdentifier: string; nationalIdentifierType: Ivms101NationalIdentifierType; countryOfIssue: string };
    dateAndPlaceOfBirth?: { dateOfBirth: string; placeOfBirth: string };
    customerIdentification?: string;
    countryOfResidence?: string;
  };
}

export interface Ivms101LegalPerson {
  legalPerson: {
    name: { nameIdentifier: { legalPersonName: string; legalPersonNameIdentifierType: 'LEGL' }[] };
    customerIdentification?: string;
  };
}

export type Ivms101Person = Ivms101NaturalPerson | Ivms101LegalPerson;

export interface Ivms101Originator {
  originatorPersons: Ivms101Person[];
  /** Empty: the originator pays from a balance here, not from a wallet of their own. */
  accountNumber: string[];
}

export interface Ivms101Beneficiary {
  beneficiaryPersons: Ivms101Person[];
  accountNumber: string[];
}

export interface TravelRuleData {
  ivms101: { originator: Ivms101Originator; beneficiary: Ivms101Beneficiary };
  transfer: TravelRuleTransfer;
  walletType: WalletType;
  requiresCompletion: boolean;
}

export function buildTravelRuleData(
  originator: Originator,
  beneficiary: Beneficiary,
  transfer: TravelRuleTransfer,
  thresholdEur: string,
): TravelRuleData {
  return {
    ivms101: {
      originator: { originatorPersons: [originatorPerson(originator)], accountNumber: [] },
      beneficiary: { beneficiaryPersons: [beneficiaryPerson(beneficiary)], accountNumber: [beneficiary.walletAddress] },
    },
    transfer,
    walletType: beneficiary.walletType,
    requiresCompletion: requiresTravelRuleCompletion(beneficiary.walletType, thresholdAmountEur(transfer), thresholdEur),
  };
}

/** What the threshold is compared with: this transfer alone, or its destination's 24-hour sum when larger. */
export function thresholdAmountEur(transfer: TravelRuleTransfer): string {
  const sum = transfer.destinationEurLast24h;
  return sum !== undefined && compareDecimalStrings(sum, transfer.amountEur) > 0 ? sum : transfer.amountEur;
}

/** A custodial destination is a regulated provider that exchanges the data itself. "Above" is strict. */
export function requiresTravelRuleCompletion(walletType: WalletType, amountEur: string, thresholdEur: string): boolean {
  // Compared before the wallet type is looked at, so a malformed amount fails for every type.
  const comparison = compareDecimalStrings(amountEur, thresholdEur);
  return walletType !== 'CUSTODIAL' && comparison > 0;
}

const NON_NEGATIVE_DECIMAL = /^(\d+)(?:\.(\d+))?$/;

/** Non-negative plain decimals compared exactly as scaled BigInts (no floats for money in workflow code); else throws. */
export function compareDecimalStrings(a: string, b: string): -1 | 0 | 1 {
  const [aInteger, aFraction] = splitDecimal(a);
  const [bInteger, bFraction] = splitDecimal(b);
  const fractionDigits = Math.max(aFraction.length, bFraction.length);
  const aScaled = BigInt(aInteger + aFraction.padEnd(fractionDigits, '0'));
  const bScaled = BigInt(bInteger + bFraction.padEnd(fractionDigits, '0'));
  if (aScaled < bScaled) return -1;
  if (aScaled > bScaled) return 1;
  return 0;
}

function splitDecimal(text: string): [integer: string, fraction: string] {
  const match = NON_NEGATIVE_DECIMAL.exec(text);
  if (match === null) throw new RangeError(`not a non-negative plain decimal: "${text}"`);
  return [match[1] ?? '0', match[2] ?? ''];
}

function originatorPerson(originator: Originator): Ivms101Person {
  if (originator.kind === 'LEGAL') {
    const person = legalPerson(originator.name);
    person.legalPerson.customerIdentification = originator.customerId;
    return person;
  }
  const person: Ivms101NaturalPerson['naturalPerson'] = {
    name: {
      nameIdentifier: [{ primaryIdentifier: originator.lastName, secondaryIdentifier: originator.firstName, nameIdentifierType: 'LEGL' }],
    },
    geographicAddress: [{ addressType: 'HOME', addressLine: [originator.address], townName: originator.city, country: originator.country }],
    nationalIdentification: {
      nationalIdentifier: originator.documentNumber,
      nationalIdentifierType: nationalIdentifierType(originator.documentType),
      countryOfIssue: originator.country,
    },
  };
  // An empty string is as unknown as null: IVMS101 requires a real date when the element is present.
  if (originator.birthDate !== null && originator.birthDate !== '') {
    person.dateAndPlaceOfBirth = { dateOfBirth: originator.birthDate, placeOfBirth: originator.birthCountry ?? '' };
  }
  person.customerIdentification = originator.customerId;
  person.countryOfResidence = originator.country;
  return { naturalPerson: person };
}

/** The beneficiary arrives as one `name`; its last word is taken as the family name. */
function beneficiaryPerson(beneficiary: Beneficiary): Ivms101Person {
  if (beneficiary.receiverType === 'LEGAL') return legalPerson(beneficiary.name);
  const name = beneficiary.name.trim();
  const lastSpace = name.lastIndexOf(' ');
  const identifier: Ivms101NaturalPersonName =
    lastSpace === -1
      ? { primaryIdentifier: name, nameIdentifierType: 'LEGL' }
      : { primaryIdentifier: name.slice(lastSpace + 1), secondaryIdentifier: name.slice(0, lastSpace).trim(), nameIdentifierType: 'LEGL' };
  return { naturalPerson: { name: { nameIdentifier: [identifier] } } };
}

function legalPerson(name: string): Ivms101LegalPerson {
  return { legalPerson: { name: { nameIdentifier: [{ legalPersonName: name, legalPersonNameIdentifierType: 'LEGL' }] } } };
}

/** ID at the start of a word: ID_CARD, IDENTITY, NATIONAL_ID, but not RESIDENCE or VALID. */
const IDENTITY_DOCUMENT = /(?:^|[^A-Z])ID/;

/** documentType is the partner's free text, matched by keyword; DRIV before ID: "DRIVER_ID" is a licence. */
function nationalIdentifierType(documentType: string): Ivms101NationalIdentifierType {
  const type = documentType.toUpperCase();
  if (type.includes('PASSPORT')) return 'CCPT';
  if (type.includes('DRIV')) return 'DRLC';
  if (IDENTITY_DOCUMENT.test(type)) return 'IDCD';
  return 'MISC';
}
