import DecimalJs from 'decimal.js';

/** 60 significant digits (decimal.js defaults to 20): numeric(38,18) with room for intermediate products. */
export const Decimal = DecimalJs.clone({ precision: 60, rounding: DecimalJs.ROUND_DOWN, toExpNeg: -100, toExpPos: 100 });
export type Decimal = InstanceType<typeof Decimal>;

/** Largest magnitude any amount may have: numeric(38,18) leaves 20 integer digits. */
export const MAX_AMOUNT = new Decimal('1e15');

/** A plain decimal string: optional minus, digits, optional fraction. No exponent, no spaces. */
const DECIMAL_PATTERN = /^-?(0|[1-9]\d*)(\.\d+)?$/;

export function isDecimalString(text: string): boolean {
  return DECIMAL_PATTERN.test(text);
}

/** Canonical text of a decimal: no exponent, no trailing zeros ("1.50" → "1.5"). */
export function toDecimalString(value: Decimal | string): string {
  const decimal = typeof value === 'string' ? new Decimal(value) : value;
  return decimal.toFixed();
}

export function roundDown(value: Decimal, scale: number): Decimal {
  return value.toDecimalPlaces(scale, Decimal.ROUND_DOWN);
}
