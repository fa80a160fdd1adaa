import { createHash, randomUUID } from 'node:crypto';
import type pg from 'pg';
import { DomainError } from '../../core/errors';
import { claimIdempotencyKey, completeIdempotencyRecord, releaseIdempotencyClaim } from '../../db/queries/idempotency.queries';
import { HTTP_ERRORS, errorBody } from '../http/error-mapping';
import { isJsonNumber, stringifyExactJson } from '../http/exact-json';

export interface OperationResponse {
  status: number;
  body: Record<string, unknown>;
  /** Answered from the idempotency store: the first request's answer, nothing performed again. */
  replayed?: boolean;
}

export interface IdempotentRequest {
  partnerId: string;
  /** e.g. "POST /v1/partner/exchange": a key is bound to the route it was first used on. */
  operation: string;
  /** The Idempotency-Key header, if the partner sent one. */
  key: string | undefined;
  /** The parsed body; its canonical form is what "same request" means. */
  body: unknown;
  /** Performs the operation for a resource id; the same id on every replay of the key. */
  perform(resourceId: string): Promise<OperationResponse>;
}

const KEY_PATTERN = /^[\x21-\x7e]{1,255}$/;

/**
 * DESIGN.md idempotency: the unique (partner, key) decides concurrent first requests; the resource id becomes the workflow
 * id. Refusals are replayed; our 5xx are not stored (a retry may succeed); a key whose operation was abandoned is freed.
 */
export async function performIdempotently(pool: pg.Pool, request: IdempotentRequest): Promise<OperationResponse> {
  if (request.key === undefined) return request.perform(randomUUID());
  if (!KEY_PATTERN.test(request.key)) {
    throw new DomainError('invalid-request', 'Idempotency-Key must be 1 to 255 visible ASCII characters');
  }
  const { claimed, record } = await claimIdempotencyKey(pool, {
    id: randomUUID(),
    partnerId: request.partnerId,
    key: request.key,
    operation: request.operation,
    requestHash: requestHash(request.body),
    resourceId: randomUUID(),
  });
  if (!claimed) {
    if (record.operation !== request.operation || record.request_hash !== requestHash(request.body)) {
      throw new DomainError('idempotency-conflict', 'this Idempotency-Key was already used with a different request');
    }
    if (record.response_status !== null) {
      return { status: record.response_status, body: record.response_body as Record<string, unknown>, replayed: true };
    }
  }
  try {
    const response = await request.perform(record.resource_id);
    await completeIdempotencyRecord(pool, record.id, response.status, response.body);
    return response;
  } catch (error) {
    if (error instanceof DomainError && HTTP_ERRORS[error.kind].status < 500) {
      await completeIdempotencyRecord(pool, record.id, HTTP_ERRORS[error.kind].status, errorBody(error.kind, error.detail));
    }
    if (error instanceof DomainError && error.kind === 'operation-abandoned') await releaseIdempotencyClaim(pool, record.id);
    throw error;
  }
}

function requestHash(body: unknown): string {
  return createHash('sha256')
    .update(stringifyExactJson(canonical(body)))
    .digest('hex');
}

/** Key order does not make a request different; everything else does. */
function canonical(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(canonical);
  if (value !== null && typeof value === 'object' && !isJsonNumber(value)) {
    return Object.fromEntries(
      Object.keys(value)
        .sort()
        .map((key) => [key, canonical((value as Record<string, unknown>)[key])]),
    );
  }
  return value;
}
