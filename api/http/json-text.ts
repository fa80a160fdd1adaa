import { Readable } from 'node:stream';
import type { Context } from 'koa';
import { assertInvariant } from '../../core/errors';

/**
 * Responses written straight as JSON text, for the hot read endpoints: their numbers arrive from
 * Postgres as exact decimal text and go out as the same digits, with no object built and walked
 * again by a serialiser.
 */

/** The JSON number grammar: a decimal's text must match it to be written as a number token. */
const JSON_NUMBER = /^-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?$/;

/** Decimal text as a JSON number token, digit for digit ("0.000000000000000001", never 1e-18). */
export function jsonNumberText(decimalText: string): string {
  assertInvariant(JSON_NUMBER.test(decimalText), `"${decimalText}" is a JSON number`);
  return decimalText;
}

/** A string (or null) as a JSON value, escaped as JSON.stringify does. */
export function jsonStringText(value: string | null): string {
  return JSON.stringify(value);
}

/** A body serialised already. */
export function respondJsonText(ctx: Context, status: number, json: string): void {
  ctx.status = status;
  ctx.type = 'application/json; charset=utf-8';
  ctx.body = json;
}

/**
 * A body written piece by piece, each produced only when the client has taken the one before
 * (the stream's back-pressure): memory stays at a piece or two however long the body is. Once
 * the headers are out a failure can only cut the response short, which the client sees as a
 * broken transfer, never as a complete but wrong body.
 */
export function respondJsonStream(ctx: Context, status: number, pieces: AsyncIterable<string>): void {
  ctx.status = status;
  ctx.type = 'application/json; charset=utf-8';
  ctx.body = Readable.from(pieces, { objectMode: false });
}
