import { isJsonNumber, jsonNumber, parseExactJson, stringifyExactJson } from '../../api/http/exact-json';

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

  it('refuses duplicate keys, which would make a body ambiguous', () => {
    expect(() => parseExactJson('{"amount": 1, "amount": 2}')).toThrow(/Duplicate key/);
  });
});
