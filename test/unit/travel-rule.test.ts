import { buildTravelRuleData, compareDecimalStrings, requiresTravelRuleCompletion, thresholdAmountEur } from '../../core/travel-rule';
import type { Beneficiary, LegalPersonOriginator, NaturalPersonOriginator, TravelRuleTransfer } from '../../core/travel-rule';

const naturalOriginator: NaturalPersonOriginator = {
  kind: 'NATURAL',
  firstName: 'Jan',
  lastName: 'Kowalski',
  address: 'ul. Prosta 1',
  city: 'Warszawa',
  country: 'PL',
  documentType: 'PASSPORT',
  documentNumber: 'AB1234567',
  birthDate: '1990-05-17',
  birthCountry: 'PL',
  customerId: 'user-42',
};

const legalOriginator: LegalPersonOriginator = { kind: 'LEGAL', name: 'Acme Wallet GmbH', customerId: 'partner-7' };

const beneficiary: Beneficiary = {
  name: 'Anna Maria Nowak',
  receiverType: 'NATURAL',
  walletType: 'NON_CUSTODIAL',
  walletAddress: 'bc1qexampleaddress',
};

const transfer: TravelRuleTransfer = { currency: 'btc', network: 'bitcoin', amount: '0.05', amountEur: '2500.00' };

describe('buildTravelRuleData', () => {
  it('describes a natural-person originator in IVMS101 with name, address, document, birth and customer id', () => {
    const data = buildTravelRuleData(naturalOriginator, beneficiary, transfer, '1000');
    expect(data.ivms101.originator).toEqual({
      originatorPersons: [
        {
          naturalPerson: {
            name: { nameIdentifier: [{ primaryIdentifier: 'Kowalski', secondaryIdentifier: 'Jan', nameIdentifierType: 'LEGL' }] },
            geographicAddress: [{ addressType: 'HOME', addressLine: ['ul. Prosta 1'], townName: 'Warszawa', country: 'PL' }],
            nationalIdentification: { nationalIdentifier: 'AB1234567', nationalIdentifierType: 'CCPT', countryOfIssue: 'PL' },
            dateAndPlaceOfBirth: { dateOfBirth: '1990-05-17', placeOfBirth: 'PL' },
            customerIdentification: 'user-42',
            countryOfResidence: 'PL',
          },
        },
      ],
      accountNumber: [],
    });
  });

  it.each([null, ''])('leaves out date and place of birth when the birth date is %p', (birthDate) => {
    const data = buildTravelRuleData({ ...naturalOriginator, birthDate, birthCountry: 'PL' }, beneficiary, transfer, '1000');
    expect(data.ivms101.originator.originatorPersons[0]).toEqual({
      naturalPerson: expect.not.objectContaining({ dateAndPlaceOfBirth: expect.anything() }),
    });
    expect(JSON.stringify(data)).not.toContain('dateAndPlaceOfBirth');
  });

  it('writes an empty place of birth when only the birth country is unknown', () => {
    const data = buildTravelRuleData({ ...naturalOriginator, birthCountry: null }, beneficiary, transfer, '1000');
    expect(data.ivms101.originator.originatorPersons[0]).toMatchObject({
      naturalPerson: { dateAndPlaceOfBirth: { dateOfBirth: '1990-05-17', placeOfBirth: '' } },
    });
  });

  it.each([
    ['PASSPORT', 'CCPT'],
    ['passport', 'CCPT'],
    ['ID_CARD', 'IDCD'],
    ['NATIONAL_ID', 'IDCD'],
    ['identity card', 'IDCD'],
    ['IDENTITY_CARD', 'IDCD'],
    ['DRIVING_LICENSE', 'DRLC'],
    ['DRIVER_ID', 'DRLC'],
    ['RESIDENCE_PERMIT', 'MISC'],
    ['VALID_VISA', 'MISC'],
    ['', 'MISC'],
  ])('maps document type "%s" to the IVMS101 identifier type %s', (documentType, identifierType) => {
    const data = buildTravelRuleData({ ...naturalOriginator, documentType }, beneficiary, transfer, '1000');
    expect(data.ivms101.originator.originatorPersons[0]).toMatchObject({
      naturalPerson: { nationalIdentification: { nationalIdentifierType: identifierType } },
    });
  });

  it('describes a legal-person originator by its legal name and customer id', () => {
    const data = buildTravelRuleData(legalOriginator, beneficiary, transfer, '1000');
    expect(data.ivms101.originator).toEqual({
      originatorPersons: [
        {
          legalPerson: {
            name: { nameIdentifier: [{ legalPersonName: 'Acme Wallet GmbH', legalPersonNameIdentifierType: 'LEGL' }] },
            customerIdentification: 'partner-7',
          },
        },
      ],
      accountNumber: [],
    });
  });

  it('splits a natural beneficiary name at the last space into given names and family name', () => {
    const data = buildTravelRuleData(naturalOriginator, beneficiary, transfer, '1000');
    expect(data.ivms101.beneficiary).toEqual({
      beneficiaryPersons: [
        {
          naturalPerson: {
            name: { nameIdentifier: [{ primaryIdentifier: 'Nowak', secondaryIdentifier: 'Anna Maria', nameIdentifierType: 'LEGL' }] },
          },
        },
      ],
      accountNumber: ['bc1qexampleaddress'],
    });
  });

  it('uses a one-word natural beneficiary name as the family name alone', () => {
    const data = buildTravelRuleData(naturalOriginator, { ...beneficiary, name: 'Madonna' }, transfer, '1000');
    expect(data.ivms101.beneficiary.beneficiaryPersons).toEqual([
      { naturalPerson: { name: { nameIdentifier: [{ primaryIdentifier: 'Madonna', nameIdentifierType: 'LEGL' }] } } },
    ]);
  });

  it('ignores surrounding and doubled spaces when splitting a beneficiary name', () => {
    const data = buildTravelRuleData(naturalOriginator, { ...beneficiary, name: ' Anna  Nowak ' }, transfer, '1000');
    expect(data.ivms101.beneficiary.beneficiaryPersons).toEqual([
      {
        naturalPerson: {
          name: { nameIdentifier: [{ primaryIdentifier: 'Nowak', secondaryIdentifier: 'Anna', nameIdentifierType: 'LEGL' }] },
        },
      },
    ]);
  });

  it('describes a legal beneficiary by its whole name as the legal name', () => {
    const data = buildTravelRuleData(
      naturalOriginator,
      { ...beneficiary, name: 'Exchange Two Ltd', receiverType: 'LEGAL' },
      transfer,
      '1000',
    );
    expect(data.ivms101.beneficiary).toEqual({
      beneficiaryPersons: [
        { legalPerson: { name: { nameIdentifier: [{ legalPersonName: 'Exchange Two Ltd', legalPersonNameIdentifierType: 'LEGL' }] } } },
      ],
      accountNumber: ['bc1qexampleaddress'],
    });
  });

  it('carries the transfer and wallet type and flags completion above the threshold to a non-custodial wallet', () => {
    const data = buildTravelRuleData(naturalOriginator, beneficiary, transfer, '1000');
    expect(data.transfer).toEqual(transfer);
    expect(data.walletType).toBe('NON_CUSTODIAL');
    expect(data.requiresCompletion).toBe(true);
  });

  it('does not flag completion for a custodial wallet above the threshold', () => {
    const data = buildTravelRuleData(naturalOriginator, { ...beneficiary, walletType: 'CUSTODIAL' }, transfer, '1000');
    expect(data.requiresCompletion).toBe(false);
  });

  it('survives a JSON round trip unchanged, as workflow payloads do', () => {
    const data = buildTravelRuleData(naturalOriginator, beneficiary, transfer, '1000');
    expect(JSON.parse(JSON.stringify(data))).toEqual(data);
  });
});

describe("the threshold over a destination's 24-hour sum", () => {
  const part: TravelRuleTransfer = { currency: 'pol', network: 'polygon', amount: '3500', amountEur: '700' };

  it.each([
    [undefined, '700', false],
    ['700', '700', false],
    ['1000', '1000', false],
    ['1400', '1400', true],
    ['1000.000000000000000001', '1000.000000000000000001', true],
    // Never below the transfer's own value, whatever the sum says.
    ['0', '700', false],
  ] as const)('with a sum of %p, compares EUR %s with the threshold: completion required %p', (sum, compared, required) => {
    const transfer = sum === undefined ? part : { ...part, destinationEurLast24h: sum };
    expect(thresholdAmountEur(transfer)).toBe(compared);
    expect(buildTravelRuleData(naturalOriginator, beneficiary, transfer, '1000').requiresCompletion).toBe(required);
  });

  it('a custodial destination never requires completion, whatever the sum', () => {
    const transfer = { ...part, destinationEurLast24h: '5000' };
    expect(buildTravelRuleData(naturalOriginator, { ...beneficiary, walletType: 'CUSTODIAL' }, transfer, '1000').requiresCompletion).toBe(
      false,
    );
  });
});

describe('requiresTravelRuleCompletion', () => {
  it.each([
    ['NON_CUSTODIAL', '1000', false],
    ['NON_CUSTODIAL', '1000.00', false],
    ['NON_CUSTODIAL', '999.99', false],
    ['NON_CUSTODIAL', '1000.01', true],
    ['NON_CUSTODIAL', '1000.000001', true],
    ['OTHER', '1000', false],
    ['OTHER', '1000.01', true],
    ['OTHER', '25000', true],
    ['CUSTODIAL', '1000', false],
    ['CUSTODIAL', '1000.01', false],
    ['CUSTODIAL', '1000000', false],
  ] as const)('to a %s wallet, EUR %s above a EUR 1000 threshold requires completion: %s', (walletType, amountEur, expected) => {
    expect(requiresTravelRuleCompletion(walletType, amountEur, '1000')).toBe(expected);
  });

  it('throws on a malformed amount whatever the wallet type, because it is a programming error', () => {
    expect(() => requiresTravelRuleCompletion('CUSTODIAL', '1e3', '1000')).toThrow(RangeError);
    expect(() => requiresTravelRuleCompletion('OTHER', '1000', '-1')).toThrow(RangeError);
  });
});

describe('compareDecimalStrings', () => {
  it.each([
    ['1000', '1000', 0],
    ['1000', '1000.000', 0],
    ['1000.10', '1000.1', 0],
    ['01000', '1000', 0],
    ['0', '0.0', 0],
    ['1000.000001', '1000', 1],
    ['1000', '1000.000001', -1],
    ['999.999999', '1000', -1],
    ['1000.01', '999.99', 1],
    ['0.5', '0.49', 1],
    ['12345678901234567890.123456789012345678', '12345678901234567890.123456789012345677', 1],
  ] as const)('compares %s with %s as %i', (a, b, expected) => {
    expect(compareDecimalStrings(a, b)).toBe(expected);
  });

  it.each(['', '-1', '1e3', '1.', '.5', ' 1', '1,5', 'NaN', 'Infinity', '0x10'])(
    'rejects "%s" as not a non-negative plain decimal',
    (text) => {
      expect(() => compareDecimalStrings(text, '1')).toThrow(RangeError);
      expect(() => compareDecimalStrings('1', text)).toThrow(RangeError);
    },
  );
});
