import { z } from 'zod';

/** Headers, described once. The Idempotency-Key rule mirrors api/idempotency/idempotency.ts (a unit test holds them together). */
export const idempotencyKeyHeader = z
  .string()
  .regex(/^[\x21-\x7e]{1,255}$/)
  .optional()
  .meta({
    description:
      'Makes the POST safe to retry: the same key with the same body returns the first answer again (errors included, ' +
      'except 5xx), marked `Idempotent-Replayed: true`, and never moves money twice; the same key with another body or ' +
      'on another route is 409 P409. ' +
      '1 to 255 visible ASCII characters, e.g. a UUID; kept per partner.',
    examples: ['6f1d2c3b-4a5e-4f60-8a7b-9c0d1e2f3a4b'],
  });

export const linkHeader = z.string().meta({
  description:
    'Only with `limit`, and only while more entries follow: the next page, `<…?limit=N&cursor=…>; rel="next"`. No header: this is the last page.',
  examples: [
    '</v1/partner/transaction-history/11/2026?limit=100&cursor=MjAyNi0xMS0yMVQxNjoxMjoyNy43ODYxMjMgNWIwZTFjOWUtOGQ1NS00YThmLTlhNTEtMWYzYzJmMGY0Yjdl>; rel="next"',
  ],
});

export const retryAfterHeader = z
  .string()
  .regex(/^\d+$/)
  .meta({ description: 'Seconds to wait before the next request.', examples: ['1'] });

export const requestIdHeader = z
  .string()
  .regex(/^[A-Za-z0-9._:-]{1,128}$/)
  .optional()
  .meta({
    description:
      'Your id for this request (1 to 128 of A-Z a-z 0-9 . _ : -): echoed in X-Request-Id and carried on our log lines. Absent or malformed, we make one.',
    examples: ['req-2026-11-21-0001'],
  });

const responseRequestId = z.string().meta({
  description: 'The request id (yours if well-formed, else ours): quote it when asking about this request.',
  examples: ['req-2026-11-21-0001'],
});

const rateLimitPolicy = z.string().meta({
  description:
    'When rate limiting is on: the quotas the request drew from (draft-ietf-httpapi-ratelimit-headers), `"default";q=<burst>;w=<seconds>` per API key and, on a request that changes something, `"writes";q=<burst>;w=<seconds>` per partner.',
  examples: ['"default";q=200;w=4'],
});

const rateLimit = z.string().meta({
  description:
    'When rate limiting is on: per quota, requests left and seconds until it is full again, `"default";r=<remaining>;t=<seconds>` (and `"writes";r=…;t=…`).',
  examples: ['"default";r=199;t=1'],
});

export const idempotentReplayedHeader = z.literal('true').meta({
  description: 'Present on an answer replayed for a repeated Idempotency-Key: nothing was performed again.',
});

/** A response's headers: the request id, the rate-limit state once the partner is known (not on a 401), Retry-After on 429 and 503. */
export function responseHeaders(status: number, extra: Record<string, z.ZodType> = {}) {
  return z.object({
    'X-Request-Id': responseRequestId,
    ...(status === 401 ? {} : { RateLimit: rateLimit.optional(), 'RateLimit-Policy': rateLimitPolicy.optional() }),
    ...(status === 429 || status === 503 ? { 'Retry-After': retryAfterHeader } : {}),
    ...extra,
  });
}
