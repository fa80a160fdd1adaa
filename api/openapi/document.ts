import { createDocument } from 'zod-openapi';
import { PrewrittenJson } from '../http/exact-json';
import { restoreExactNumbers } from './exact-number';
import { documentedRoutes, pathsOf } from './paths';
import { webhooksSection } from './webhooks';

export type OpenApiDocument = ReturnType<typeof createDocument>;

const DESCRIPTION = `Partner accounts (balances, a month of history, rate locks, exchanges, crypto withdrawals, SEPA transfers) and crypto withdrawals on behalf of a partner's users.

**Authentication.** Every \`/v1\` route needs a partner API key: \`Authorization: Bearer <key>\`. A missing, unknown, revoked or expired key is 401 P401. Every read and write is scoped to the key's partner. A key has a scope: \`payments\` keys may do everything, \`read\` keys only read: a \`read\` key on a route that changes something (every POST and DELETE, and get-lock, which stores a lock) is 403 P440 key-not-permitted, and nothing is done. Keys are issued, rotated (the old key keeps working for an overlap, then 401) and revoked by our operators.

**Exact amounts.** Amounts are exact decimals, never binary floats. Responses write them as JSON numbers with all their digits (\`0.000000000000000001\`, not \`1e-18\`): read them with a decimal-aware JSON parser. Requests may send an amount as a JSON number, which is read digit for digit, or as a decimal string. Balance amounts are strings, as the spec has them. (This page shows numbers as JavaScript reads them; \`/v1/openapi.json\` has the exact digits.)

**Idempotency.** Every POST accepts an \`Idempotency-Key\` header: a retry with the same key and body gets the first answer again and never moves money twice.

**Errors.** Every error is \`{"errorCode", "errorName", "errorMessage"}\` (errorMessage when there is something to say; P403 has no errorName). Each route lists its own; any route answers an unknown path with 404 P404. A request that fails moves no money.

**Rate limits.** Requests are limited per partner (\`RateLimit\` and \`RateLimit-Policy\` say where the partner stands); over the limit the answer is 429 P429 with \`Retry-After\`.

**Request ids.** Every answer carries \`X-Request-Id\`: the one the request sent, if well-formed, or a new one. Quote it when asking about a request.

**Webhooks.** Status changes of withdrawals, SEPA transfers and exchanges, and every address added to or deleted from the withdrawal-address book, are sent to the partner's endpoint, signed per Standard Webhooks: see *Webhooks*.

This document is served at \`GET /v1/openapi.json\`, this page at \`GET /docs\`; neither needs a key.`;

/** The OpenAPI 3.1 document of the API, built from the routes' definitions (api/routes/index.ts). */
export function createOpenApiDocument(currentYear: number): OpenApiDocument {
  const document = createDocument(
    {
      openapi: '3.1.0',
      info: { title: 'Partner payments API', version: '1.0.0', description: DESCRIPTION },
      servers: [{ url: '/', description: 'This server' }],
      tags: [
        {
          name: 'Partner',
          description: "The partner's own account: balances, history, rate locks, exchanges, withdrawals, SEPA transfers.",
        },
        {
          name: 'Crypto withdrawals',
          description: "Network fees, withdrawals on behalf of the partner's users, and any withdrawal's details.",
        },
        {
          name: 'Withdrawal address book',
          description:
            "The addresses the partner trusts as withdrawal destinations. A new one is PENDING for the partner's cooling-off (24 hours unless operators set another), then ACTIVE; every addition and deletion is sent as a webhook. When operators require it for the partner (its policy: never the partner's own key), a withdrawal to an address that is not ACTIVE in the book is refused with 400 P441.",
        },
      ],
      security: [{ partnerApiKey: [] }],
      paths: pathsOf(documentedRoutes(currentYear)),
      webhooks: webhooksSection(),
      components: {
        securitySchemes: {
          partnerApiKey: {
            type: 'http',
            scheme: 'bearer',
            description: 'A partner API key, sent as `Authorization: Bearer <key>`. A partner may hold several; each can be revoked.',
          },
        },
      },
    },
    {
      // zod adds its own regular expression to uuid, date and date-time strings; the format says it all.
      override: ({ jsonSchema }) => {
        if (typeof jsonSchema.format === 'string' && ['uuid', 'date', 'date-time'].includes(jsonSchema.format)) delete jsonSchema.pattern;
      },
    },
  );
  return restoreExactNumbers(document);
}

/** Built once per year (the history's year parameter names it), written once with exact numbers. */
let cached: { year: number; json: PrewrittenJson } | undefined;

export function openApiDocumentJson(currentYear: number): PrewrittenJson {
  if (cached?.year !== currentYear) cached = { year: currentYear, json: PrewrittenJson.of(createOpenApiDocument(currentYear)) };
  return cached.json;
}

export function openApiJson(currentYear: number): string {
  return openApiDocumentJson(currentYear).text;
}
