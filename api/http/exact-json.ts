import { LosslessNumber, isLosslessNumber, parse } from 'lossless-json';
import type { Decimal } from '../../core/money';

/** JSON with exact numbers both ways: parsed numbers keep their source text, decimals are written digit for digit. */
export type JsonNumber = LosslessNumber;

export const parseExactJson = (text: string): unknown => parse(text);

export const isJsonNumber: (value: unknown) => value is JsonNumber = isLosslessNumber;

/** A decimal string or Decimal written out as a JSON number token, digit for digit. */
export function jsonNumber(value: string | Decimal): JsonNumber {
  return new LosslessNumber(typeof value === 'string' ? value : value.toFixed());
}

/** JSON text written once, then embedded as it is (JSON.rawJSON from Node 21 on): for a body served many times. */
export class PrewrittenJson {
  private constructor(readonly text: string) {}

  static of(value: unknown): PrewrittenJson {
    return new PrewrittenJson(stringifyExactJson(value));
  }
}

/** What lossless-json's stringify writes (a unit test holds them together), as fast as hand-built JSON: hot paths use it. */
export function stringifyExactJson(value: unknown): string {
  const text = write(value);
  if (text === undefined) throw new TypeError('value cannot be written as JSON');
  return text;
}

/** One value's JSON text; undefined for what JSON has no form for (undefined, a function, a symbol). */
function write(value: unknown): string | undefined {
  switch (typeof value) {
    case 'string':
    case 'number':
    case 'boolean':
      return JSON.stringify(value);
    case 'bigint':
      return value.toString();
    case 'object':
      if (value === null) return 'null';
      if (isLosslessNumber(value)) return value.toString();
      if (value instanceof PrewrittenJson) return value.text;
      if (Array.isArray(value)) return `[${Array.from(value, (item) => write(item) ?? 'null').join(',')}]`;
      if (value instanceof Boolean || value instanceof Number || value instanceof String) return JSON.stringify(value);
      return writeObject(value as Record<string, unknown>);
    default:
      return undefined;
  }
}

function writeObject(object: Record<string, unknown>): string | undefined {
  // A Date, for one, is written as its toJSON() says.
  if (typeof object.toJSON === 'function') return write((object.toJSON as () => unknown)());
  let text = '{';
  for (const key of Object.keys(object)) {
    const item = write(object[key]);
    if (item === undefined) continue;
    if (text.length > 1) text += ',';
    text += `${JSON.stringify(key)}:${item}`;
  }
  return `${text}}`;
}
