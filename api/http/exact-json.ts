import { LosslessNumber, isLosslessNumber, parse } from 'lossless-json';
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

/**
 * JSON text written once by this writer and then embedded as it is wherever it appears (what
 * JSON.rawJSON does from Node 21 on): for a body served many times, such as the OpenAPI document.
 */
export class PrewrittenJson {
  private constructor(readonly text: string) {}

  static of(value: unknown): PrewrittenJson {
    return new PrewrittenJson(stringifyExactJson(value));
  }
}

/**
 * What lossless-json's stringify writes (a unit test holds them together), at about the cost of
 * JSON text built by hand: the hot read endpoints write every body through here.
 */
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
      if (Array.isArray(value)) return writeArray(value);
      if (value instanceof Boolean || value instanceof Number || value instanceof String) return JSON.stringify(value);
      return writeObject(value as Record<string, unknown>);
    default:
      return undefined;
  }
}

function writeArray(items: readonly unknown[]): string {
  let text = '[';
  for (let index = 0; index < items.length; index += 1) {
    if (index > 0) text += ',';
    text += write(items[index]) ?? 'null';
  }
  return `${text}]`;
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
