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

/** A chain's smallest units as an exact decimal string in whole units ("1.5" for 1500000 at 6 decimals), no trailing zeros, no float. */
export function unitsToDecimal(units: bigint, decimals: number): string {
  if (units < 0n) throw new Error('a transfer value is never negative');
  if (!Number.isInteger(decimals) || decimals < 0 || decimals > 77) throw new Error(`invalid decimals ${decimals}`);
  const digits = units.toString().padStart(decimals + 1, '0');
  const whole = digits.slice(0, digits.length - decimals);
  const fraction = digits.slice(digits.length - decimals).replace(/0+$/, '');
  return fraction.length > 0 ? `${whole}.${fraction}` : whole;
}
