import { createHash } from 'node:crypto';
import { canonicalJson } from '../../core/canonical-json';
import { travelRuleCompletionDigest } from '../../core/travel-rule-completion-digest';

const beneficiary = {
  beneficiaryPersons: [
    {
      naturalPerson: {
        name: { nameIdentifier: [{ primaryIdentifier: 'Kowalski', secondaryIdentifier: 'Jan', nameIdentifierType: 'LEGL' }] },
      },
    },
  ],
};

describe('travelRuleCompletionDigest', () => {
  it('is the SHA-256 hex of the canonical JSON of who completed it and the beneficiary', () => {
    const expected = createHash('sha256')
      .update(
        '{"beneficiary":{"beneficiaryPersons":[{"naturalPerson":{"name":{"nameIdentifier":[{"nameIdentifierType":"LEGL","primaryIdentifier":"Kowalski","secondaryIdentifier":"Jan"}]}}}]},"completedBy":"ops@example.com"}',
      )
      .digest('hex');
    expect(travelRuleCompletionDigest({ completedBy: 'ops@example.com', beneficiary })).toBe(expected);
  });

  it('leaves the beneficiary out when none was given', () => {
    const expected = createHash('sha256').update('{"completedBy":"ops@example.com"}').digest('hex');
    expect(travelRuleCompletionDigest({ completedBy: 'ops@example.com' })).toBe(expected);
    expect(travelRuleCompletionDigest({ completedBy: 'ops@example.com', beneficiary: undefined })).toBe(expected);
  });

  it('does not depend on the order of keys, and changes with any value', () => {
    const reordered = JSON.parse(
      '{"beneficiaryPersons":[{"naturalPerson":{"name":{"nameIdentifier":[{"secondaryIdentifier":"Jan","nameIdentifierType":"LEGL","primaryIdentifier":"Kowalski"}]}}}]}',
    ) as unknown;
    const digest = travelRuleCompletionDigest({ completedBy: 'ops@example.com', beneficiary });
    expect(travelRuleCompletionDigest({ beneficiary: reordered, completedBy: 'ops@example.com' })).toBe(digest);
    const otherName = JSON.parse(JSON.stringify(beneficiary).replace('Kowalski', 'Nowak')) as unknown;
    expect(travelRuleCompletionDigest({ completedBy: 'ops@example.com', beneficiary: otherName })).not.toBe(digest);
    expect(travelRuleCompletionDigest({ completedBy: 'other@example.com', beneficiary })).not.toBe(digest);
    expect(travelRuleCompletionDigest({ completedBy: 'ops@example.com' })).not.toBe(digest);
  });
});

describe('canonicalJson', () => {
  it('sorts keys at every level, keeps array order, drops undefined members as JSON does', () => {
    expect(canonicalJson({ b: [3, { d: 1, c: null }], a: 'x', u: undefined })).toBe('{"a":"x","b":[3,{"c":null,"d":1}]}');
    expect(canonicalJson(['é', true, 1.5])).toBe('["é",true,1.5]');
  });

  it('refuses what has no JSON form', () => {
    expect(() => canonicalJson(() => 1)).toThrow(TypeError);
  });
});
