import { LosslessNumber, isLosslessNumber, parse, stringify } from 'lossless-json';
import type { Decimal } from '../../core/money';

/**
 * JSON with exact numbers both ways. Parsing keeps every number as its source text
 * (a LosslessNumber), so "0.000000000000000001" never passes through a float; writing emits
 * decimals as number tokens straight from their decimal strings.
 */
export type JsonNumber = LosslessNumber;

export function parseExactJson(text: string): unknown {
  return parse(text);
}

export function isJsonNumber(value: unknown): value is JsonNumber {
  return isLosslessNumber(value);
}

/** A decimal string or Decimal written out as a JSON number token, digit for digit. */
export function jsonNumber(value: string | Decimal): JsonNumber {
  return new LosslessNumber(typeof value === 'string' ? value : value.toFixed());
}

export function stringifyExactJson(value: unknown): string {
  const text = stringify(value);
  if (text === undefined) throw new TypeError('value cannot be written as JSON');
  return text;
}
