import type { z } from 'zod';
import { HTTP_ERRORS, errorBody } from '../../api/http/error-mapping';
import type { ApiErrorKind } from '../../api/http/error-mapping';
import { parseExactJson, stringifyExactJson } from '../../api/http/exact-json';
import { performIdempotently } from '../../api/idempotency/idempotency';
import { createOpenApiDocument, openApiJson } from '../../api/openapi/document';
import { idempotencyKeyHeader } from '../../api/openapi/headers';
import { documentedRoutes } from '../../api/openapi/paths';
import { webhookEventSchema } from '../../api/openapi/webhook-event.schema';
import { networkFeeRoute } from '../../api/routes/network-fee.route';
import { DomainError } from '../../core/errors';
import { WEBHOOK_EVENT_TYPES } from '../../core/webhook-event';

const YEAR = 2026;

interface MediaType {
  schema?: unknown;
  examples?: Record<string, { value: unknown }>;
}

/** An example as the API reads or writes it on the wire: JSON text, parsed with exact numbers. */
const overTheWire = (value: unknown): unknown => parseExactJson(stringifyExactJson(value));

/** Each example of each media type of a documented route, with the zod schema it belongs to. */
function examplesOf(select: (route: ReturnType<typeof documentedRoutes>[number]) => Record<string, MediaType | undefined>) {
  return documentedRoutes(YEAR).flatMap((route) =>
    Object.entries(select(route)).flatMap(([where, media]) =>
      Object.entries(media?.examples ?? {}).map(([name, example]) => ({
        label: `${route.method.toUpperCase()} ${route.path} ${where} ${name}`,
        schema: media!.schema as z.ZodType,
        value: example.value,
      })),
    ),
  );
}

const responseMedia = (route: ReturnType<typeof documentedRoutes>[number]) =>
  Object.fromEntries(
    Object.entries(route.operation.responses).map(([status, response]) => [
      status,
      (response as { content?: Record<string, MediaType> }).content?.['application/json'],
    ]),
  );

describe('the OpenAPI document', () => {
  it('is OpenAPI 3.1 with every route of the spec', () => {
    const document = createOpenApiDocument(YEAR);
    expect(document.openapi).toBe('3.1.0');
    expect(Object.keys(document.paths ?? {}).sort()).toEqual([
      '/v1/crypto-withdrawal',
      '/v1/crypto-withdrawal/details/{withdrawalId}',
      '/v1/crypto-withdrawal/get-network-fee',
      '/v1/partner/balances',
      '/v1/partner/crypto-withdrawal',
      '/v1/partner/exchange',
      '/v1/partner/get-lock',
      '/v1/partner/sepa-transfer',
      '/v1/partner/transaction-history/{month}/{year}',
      '/v1/partner/withdrawal-addresses',
      '/v1/partner/withdrawal-addresses/{id}',
    ]);
  });

  it.each(examplesOf((route) => ({ body: route.operation.requestBody?.content['application/json'] as MediaType | undefined })))(
    'request example $label is accepted by the schema its route validates with',
    ({ schema, value }) => {
      expect(schema.safeParse(overTheWire(value)).error).toBeUndefined();
    },
  );

  it.each(examplesOf(responseMedia))('response example $label matches its documented body', ({ schema, value }) => {
    expect(schema.safeParse(overTheWire(value)).error).toBeUndefined();
  });

  it('shows every error example as the body the API writes for that kind', () => {
    const document = createOpenApiDocument(YEAR);
    const examples = Object.values(document.paths ?? {}).flatMap((item) =>
      Object.values(item).flatMap((operation: { responses: Record<string, { content?: Record<string, MediaType> }> }) =>
        Object.entries(operation.responses)
          .filter(([status]) => Number(status) >= 400)
          .flatMap(([status, response]) =>
            Object.entries(response.content?.['application/json']?.examples ?? {}).map(([kind, example]) => ({ status, kind, example })),
          ),
      ),
    );
    expect(examples.length).toBeGreaterThan(40);
    for (const { status, kind, example } of examples) {
      expect(String(HTTP_ERRORS[kind as ApiErrorKind].status)).toBe(status);
      expect(example.value).toMatchObject({ errorCode: errorBody(kind as ApiErrorKind, undefined).errorCode });
    }
    // Every kind an API answer can carry is documented on some route, except an unknown route's 404
    // and unknown-operation, which no API request can cause and which answers as P500 internal-error.
    const documented = new Set(examples.map(({ kind }) => kind));
    expect(Object.keys(HTTP_ERRORS).filter((kind) => !documented.has(kind))).toEqual(['not-found', 'unknown-operation']);
    expect(errorBody('unknown-operation', undefined)).toEqual(errorBody('internal-error', undefined));
  });

  it('documents a route that needs no API key without the security and the answers of authentication', () => {
    const [open] = documentedRoutes(YEAR, [{ ...networkFeeRoute, authenticated: false }]);
    const [guarded] = documentedRoutes(YEAR, [networkFeeRoute]);
    expect(open?.operation.security).toEqual([]);
    expect(Object.keys(open?.operation.responses ?? {})).toEqual(['200', '400', '500', '503']);
    expect(guarded?.operation.security).toBeUndefined();
    expect(Object.keys(guarded?.operation.responses ?? {})).toEqual(['200', '400', '401', '429', '500', '503']);
  });

  it('lists 403 P440 key-not-permitted on every route that changes something (every POST and DELETE, and get-lock), and on no other', () => {
    const routes = documentedRoutes(YEAR);
    const forbidden = (route: (typeof routes)[number]) => {
      const response = route.operation.responses['403'] as { content?: Record<string, MediaType> } | undefined;
      return Object.keys(response?.content?.['application/json']?.examples ?? {});
    };
    const changing = (route: (typeof routes)[number]) => route.method !== 'get' || route.path === '/v1/partner/get-lock';
    expect(routes.filter(changing).length).toBeGreaterThanOrEqual(5);
    for (const route of routes.filter(changing))
      expect({ route: route.path, examples: forbidden(route) }).toEqual({ route: route.path, examples: ['key-not-permitted'] });
    for (const route of routes.filter((route) => !changing(route))) expect(route.operation.responses['403']).toBeUndefined();
    expect(errorBody('key-not-permitted', undefined)).toEqual({ errorCode: 'P440', errorName: 'key-not-permitted' });
    expect(HTTP_ERRORS['key-not-permitted'].status).toBe(403);
  });

  it('writes amounts with all their digits, never in exponent form', () => {
    const json = openApiJson(YEAR);
    expect(json.includes('"amount":0.000000000000000001')).toBe(true);
    expect(json.includes('"minDeposit":0.000000000000000001')).toBe(true);
    // A number token in exponent form (a value, or an item of an array), and what the copy of a JsonNumber looks like.
    expect(json.match(/[:,[]-?\d+(\.\d+)?[eE][+-]?\d+/g)).toBeNull();
    expect(json.includes('isLosslessNumber')).toBe(false);
  });

  it('documents one webhook per event type, each with the Standard Webhooks headers and a valid example', () => {
    const webhooks = createOpenApiDocument(YEAR).webhooks ?? {};
    expect(Object.keys(webhooks)).toEqual([...WEBHOOK_EVENT_TYPES]);
    for (const type of WEBHOOK_EVENT_TYPES) {
      const post = (
        webhooks[type] as { post: { parameters: { name: string; in: string }[]; requestBody: { content: Record<string, MediaType> } } }
      ).post;
      expect(post.parameters.map((parameter) => `${parameter.in} ${parameter.name}`)).toEqual([
        'header webhook-id',
        'header webhook-timestamp',
        'header webhook-signature',
      ]);
      const example = Object.values(post.requestBody.content['application/json']?.examples ?? {})[0];
      // Receivers parse events with plain JSON: sequence is a small integer.
      expect(webhookEventSchema(type).safeParse(JSON.parse(JSON.stringify(example?.value))).error).toBeUndefined();
      expect(webhookEventSchema(type).safeParse({ ...(example?.value as object), type: 'other.event' }).success).toBe(false);
    }
  });
});

describe('the documented Idempotency-Key rule', () => {
  /** A pool that fails every query: a key the idempotency code accepts reaches the database. */
  const unreachable = { query: () => Promise.reject(new Error('reached the database')) } as unknown as Parameters<
    typeof performIdempotently
  >[0];
  const attempt = (key: string) =>
    performIdempotently(unreachable, {
      partnerId: '00000000-0000-4000-8000-000000000001',
      operation: 'POST /v1/partner/exchange',
      key,
      body: {},
      perform: () => Promise.reject(new Error('performed')),
    }).catch((error: unknown) => error);

  it.each(['k', 'a'.repeat(255), '6f1d2c3b-4a5e-4f60-8a7b-9c0d1e2f3a4b', '!~"#'])('accepts %s as the code does', async (key) => {
    expect(idempotencyKeyHeader.safeParse(key).success).toBe(true);
    expect(await attempt(key)).toMatchObject({ message: 'reached the database' });
  });

  it.each(['a'.repeat(256), 'with space', 'tab\t', 'é'])('refuses %j as the code does', async (key) => {
    expect(idempotencyKeyHeader.safeParse(key).success).toBe(false);
    const error = await attempt(key);
    expect(error).toBeInstanceOf(DomainError);
    expect(error).toMatchObject({ kind: 'invalid-request' });
  });
});
