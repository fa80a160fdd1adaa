import type { Context, Middleware } from 'koa';
import type { ApiState } from '../state';
import { DomainError } from '../../core/errors';
import { HttpError } from '../http/http-error';
import { parseExactJson } from '../http/exact-json';

/** Reads the body (GET, HEAD and DELETE have none) up to a size limit into ctx.state.body, parsed losslessly: numbers keep their digits. */
export function bodyMiddleware(maxBodyBytes: number): Middleware<ApiState> {
  return async (ctx, next) => {
    if (ctx.method !== 'GET' && ctx.method !== 'HEAD' && ctx.method !== 'DELETE') ctx.state.body = await readJson(ctx, maxBodyBytes);
    await next();
  };
}

async function readJson(ctx: Context, maxBodyBytes: number): Promise<unknown> {
  if (Number(ctx.get('content-length') || '0') > maxBodyBytes) throw tooLarge(maxBodyBytes);
  const text = await readBody(ctx.req, maxBodyBytes);
  if (text.trim() === '') throw new DomainError('invalid-request', 'the request body must be a JSON object');
  if (!ctx.is('application/json')) throw new DomainError('invalid-request', 'Content-Type must be application/json');
  try {
    return parseExactJson(text);
  } catch (error) {
    throw new DomainError('invalid-request', `malformed JSON: ${error instanceof Error ? error.message : String(error)}`);
  }
}

function tooLarge(maxBodyBytes: number): HttpError {
  return new HttpError('payload-too-large', `the request body exceeds ${maxBodyBytes} bytes`);
}

async function readBody(stream: NodeJS.ReadableStream, maxBodyBytes: number): Promise<string> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of stream) {
    const buffer = typeof chunk === 'string' ? Buffer.from(chunk) : chunk;
    size += buffer.length;
    if (size > maxBodyBytes) throw tooLarge(maxBodyBytes);
    chunks.push(buffer);
  }
  return Buffer.concat(chunks).toString('utf8');
}
