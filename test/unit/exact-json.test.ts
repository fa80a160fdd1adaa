import fc from 'fast-check';
import { stringify } from 'lossless-json';
import { PrewrittenJson, isJsonNumber, jsonNumber, parseExactJson, stringifyExactJson } from '../../api/http/exact-json';

/** Any value a body may hold: JSON's, exact numbers, dates, and properties JSON has no form for. */
const bodyValue = fc.letrec((tie) => ({
  value: fc.oneof(
    { depthSize: 'small' },
    fc.jsonValue({ maxDepth: 1 }),
    fc.double(),
    fc.bigInt(),
    fc.date({ noInvalidDate: false }),
    fc.constantFrom(undefined, () => 1, Symbol('s')),
    fc.stringMatching(/^-?(0|[1-9]\d{0,30})(\.\d{1,30})?([eE][+-]?\d{1,3})?$/).map(jsonNumber),
    fc.array(tie('value'), { maxLength: 4 }),
    fc.dictionary(fc.string(), tie('value'), { maxKeys: 4 }),
  ),
})).value;

describe('exact JSON', () => {
  it('parses numbers as their source digits, never as floats', () => {
    const parsed = parseExactJson('{"amount": 0.123456789012345678, "big": 12345678901234567890.5}') as Record<string, unknown>;
    expect(isJsonNumber(parsed.amount)).toBe(true);
    expect(String(parsed.amount)).toBe('0.123456789012345678');
    expect(String(parsed.big)).toBe('12345678901234567890.5');
  });

  it('writes decimal strings as number tokens digit for digit', () => {
    expect(stringifyExactJson({ amount: jsonNumber('1.000000000000000001'), name: 'eth' })).toBe(
      '{"amount":1.000000000000000001,"name":"eth"}',
    );
  });

  it('writes what lossless-json writes, for any body', () => {
    fc.assert(
      fc.property(bodyValue, (value) => {
        expect(stringifyExactJson([value])).toBe(stringify([value]));
      }),
      { numRuns: 500 },
    );
  });

  it('embeds JSON written once as it is, wherever it appears', () => {
    const document = PrewrittenJson.of({ amount: jsonNumber('0.000000000000000001') });
    expect(stringifyExactJson(document)).toBe('{"amount":0.000000000000000001}');
    expect(stringifyExactJson({ spec: document, list: [document] })).toBe(
      '{"spec":{"amount":0.000000000000000001},"list":[{"amount":0.000000000000000001}]}',
    );
  });

  it('refuses duplicate keys, which would make a body ambiguous', () => {
    expect(() => parseExactJson('{"amount": 1, "amount": 2}')).toThrow(/Duplicate key/);
  });
});
