import { Decimal, isDecimalString, roundDown, toDecimalString } from '../../core/money';

describe('money', () => {
  it('keeps 60 significant digits, enough for numeric(38,18) products', () => {
    const product = new Decimal('12345678901234567890.123456789012345678').times('1.000000000000000001');
    expect(product.toFixed()).toBe('12345678901234567902.469135690246913568123456789012345678');
  });

  it('rounds down, never up, to a currency scale', () => {
    expect(roundDown(new Decimal('1.239999'), 2).toFixed()).toBe('1.23');
    expect(roundDown(new Decimal('0.000000009'), 8).toFixed()).toBe('0');
  });

  it('writes decimals without exponents and without trailing zeros', () => {
    expect(toDecimalString('1e-18')).toBe('0.000000000000000001');
    expect(toDecimalString('1.500')).toBe('1.5');
  });

  it.each([
    ['1', true],
    ['0.5', true],
    ['-2.25', true],
    ['01', false],
    ['1.', false],
    ['.5', false],
    ['1e3', false],
    [' 1', false],
  ])('"%s" is a plain decimal string: %s', (text, expected) => {
    expect(isDecimalString(text)).toBe(expected);
  });
});
