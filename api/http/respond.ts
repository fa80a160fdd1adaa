import { Readable } from 'node:stream';
import type { Context } from 'koa';
import { stringifyExactJson } from './exact-json';

/** A JSON array too long to hold: each page is fetched once the client has taken the one before (back-pressure). */
export class StreamedJsonArray {
  constructor(readonly pages: AsyncIterable<readonly unknown[]>) {}
}

/** The one way to write a JSON body, digits exact. A StreamedJsonArray failing midway is cut short: a broken transfer, not a wrong body. */
export function respond(ctx: Context, status: number, body: unknown): void {
  ctx.status = status;
  ctx.type = 'application/json; charset=utf-8';
  ctx.body = body instanceof StreamedJsonArray ? Readable.from(arrayText(body.pages), { objectMode: false }) : stringifyExactJson(body);
}

async function* arrayText(pages: AsyncIterable<readonly unknown[]>): AsyncGenerator<string> {
  let opening = '[';
  for await (const page of pages) {
    if (page.length === 0) continue;
    yield opening + page.map(stringifyExactJson).join(',');
    opening = ',';
  }
  yield opening === '[' ? '[]' : ']';
}
