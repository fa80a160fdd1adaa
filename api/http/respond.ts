import type { Context } from 'koa';
import { stringifyExactJson } from './exact-json';

export function respondJson(ctx: Context, status: number, body: unknown): void {
  ctx.status = status;
  ctx.type = 'application/json; charset=utf-8';
  ctx.body = stringifyExactJson(body);
}
