import { Readable } from 'node:stream';
import type { Context } from 'koa';
import { stringifyExactJson } from './exact-json';

/**
 * A JSON array too long to hold, given page by page: each page is fetched only when the client
 * has taken the one before (the stream's back-pressure), so memory stays at a page or two.
 */
export class StreamedJsonArray {
  constructor(readonly pages: AsyncIterable<readonly unknown[]>) {}
}

/**
 * The one way the API writes a JSON body: every number a JsonNumber with its exact digits
 * (api/http/exact-json.ts). A StreamedJsonArray goes out as it is read; once the headers are out
 * a failure can only cut the response short, which the client sees as a broken transfer, never
 * as a complete but wrong body.
 */
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
