import { z } from 'zod';
import { isJsonNumber, jsonNumber } from '../http/exact-json';
import type { JsonNumber } from '../http/exact-json';

/** What every amount's description ends with: partners must not read them into floats. */
export const EXACT_DECIMAL_NOTE =
  'An exact decimal written as a JSON number with all its digits (e.g. 0.000000000000000001): ' +
  'read it with a decimal-aware JSON parser, never into a binary float.';

/** A number of a response body: a JSON number token with a decimal's exact digits (a JsonNumber, parsed losslessly). */
export function exactNumber(meaning: string, examples: readonly string[]) {
  return z.custom<JsonNumber>(isJsonNumber, { error: 'must be a JSON number' }).meta({
    type: 'number',
    description: `${meaning} ${EXACT_DECIMAL_NOTE}`,
    examples: examples.map((example) => jsonNumber(example)),
  });
}

/** zod-openapi copies schemas via JSON.stringify, turning a JsonNumber into an object: put it back, so the document keeps every digit. */
export function restoreExactNumbers<T>(document: T): T {
  return restore(document) as T;
}

function restore(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(restore);
  if (value === null || typeof value !== 'object' || isJsonNumber(value)) return value;
  if (isCopiedJsonNumber(value)) return jsonNumber(value.value);
  return Object.fromEntries(Object.entries(value).map(([key, item]) => [key, restore(item)]));
}

function isCopiedJsonNumber(value: object): value is { value: string; isLosslessNumber: true } {
  const keys = Object.keys(value);
  const copy = value as { value?: unknown; isLosslessNumber?: unknown };
  return keys.length === 2 && copy.isLosslessNumber === true && typeof copy.value === 'string';
}
