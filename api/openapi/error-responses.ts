import { z } from 'zod';
import type { ZodOpenApiResponseObject } from 'zod-openapi';
import { HTTP_ERRORS, errorBody } from '../http/error-mapping';
import type { ApiErrorKind } from '../http/error-mapping';
import { responseHeaders } from './headers';

/** When each error happens and a message it may carry: a kind added to the catalogue does not compile until documented. */
const ERROR_DOCS: Readonly<Record<ApiErrorKind, { when: string; message: string | undefined }>> = {
  'invalid-request': {
    when: 'The body is not valid JSON, not application/json, or breaks a rule; or the Idempotency-Key is malformed. One line per problem.',
    message: 'amount: amount must have at most 2 decimals for eur\ncompanyName: companyName is required for a LEGAL receiver',
  },
  unauthorized: {
    when: 'No API key, or an unknown, revoked or expired one (a rotated key once its overlap has ended).',
    message: 'unknown, revoked or expired API key',
  },
  'key-not-permitted': {
    when: 'The API key has the read scope, which may only read (not POST, DELETE or get-lock, which stores a lock): nothing was done. Use a key with the payments scope.',
    message:
      'this API key has the read scope, which only reads; POST /v1/partner/exchange changes something and needs a key with the payments scope',
  },
  'invalid-month-or-year': {
    when: 'The month is not 1 to 12, the year is not the current or previous one, or limit or cursor is invalid. No errorName; one line per rule.',
    message: 'month: month must be at most 12',
  },
  'not-found': { when: 'No such route.', message: 'no route GET /v1/partner/balance' },
  'idempotency-conflict': {
    when: 'The Idempotency-Key was already used with a different body or on another route.',
    message: 'this Idempotency-Key was already used with a different request',
  },
  'invalid-currency': {
    when: 'The currency, network, amount, address or another field is invalid (for the withdrawal routes every body problem has this code).',
    message: 'walletAddress: walletAddress is not a valid bitcoin mainnet address',
  },
  'invalid-user': {
    when: 'No user with this sourceExternalUserId is registered with the partner.',
    message: 'no user with external id user-4711',
  },
  'payload-too-large': { when: 'The body is larger than the limit.', message: 'the request body exceeds 65536 bytes' },
  'partner-not-found': { when: 'The partner has no active eur balance to send from.', message: 'the partner has no active EUR account' },
  'withdrawal-not-found': { when: "No such withdrawal, or another partner's.", message: 'no such withdrawal' },
  'too-many-requests': {
    when: 'Too many requests from this API key, or that change something from this partner, or too many failed authentications from this client address (then without the RateLimit headers); wait as long as Retry-After says.',
    message: 'at most 50 requests per second per API key (bursts of 200)',
  },
  'too-many-operations': {
    when: 'This partner already has as many operations waiting for their answer as it may (OPERATIONS_IN_FLIGHT_PER_PARTNER): nothing was started; retry with the same Idempotency-Key once one is answered.',
    message:
      'this partner already has 50 operations waiting for their answer here, the most it may: wait for one to be answered; nothing was moved',
  },
  'invalid-exchange-lock': {
    when: "The lock is unknown, expired, used already, or another partner's.",
    message: 'the lock does not exist',
  },
  'insufficient-funds': {
    when: 'The available balance is too low (for a withdrawal: amount plus fee).',
    message: 'not enough btc available',
  },
  'limit-exceeded': {
    when: "Over the partner's rolling 24-hour limit: crypto withdrawals (in EUR at the rates of their acceptance, fees excluded) and SEPA transfers accepted in the last 24 hours and not UNSUCCESSFUL, plus this one, would exceed it. Nothing was held; says how much is left.",
    message: '10.00 EUR left in the last 24 h',
  },
  'address-not-allowlisted': {
    when: "The partner's policy requires withdrawals to go to its withdrawal-address book, and the destination is not an ACTIVE entry of it (for this currency and network): not in the book, deleted, or still in its cooling-off. Nothing was held.",
    message: 'walletAddress is in the withdrawal-address book but PENDING until 2026-11-22T16:12:27.786Z (its cooling-off)',
  },
  'withdrawal-address-not-found': {
    when: "No entry of the partner's withdrawal-address book has this id: unknown, deleted already, or another partner's.",
    message: 'no such withdrawal address',
  },
  'invalid-date': { when: 'The month is in the future or more than twelve months back.', message: '2027-01 is in the future' },
  'internal-error': {
    when: 'A fault of ours; nothing about it is disclosed. Nothing was moved unless the operation shows up.',
    message: undefined,
  },
  'service-unavailable': {
    when: 'Postgres or Temporal cannot be reached; retry after the seconds Retry-After says (a POST with the same Idempotency-Key).',
    message: 'a backing service is unavailable; retry later',
  },
  'unknown-operation': {
    when: 'A fault of ours: the operation did not match what the API recorded; nothing was moved.',
    message: undefined,
  },
  'operation-abandoned': {
    when: 'The operation could not be confirmed in time and was cancelled: nothing was moved and nothing will be; safe to retry after the seconds Retry-After says.',
    message: 'the operation was not confirmed in time, so it was cancelled: nothing was moved and nothing will be; it is safe to retry',
  },
};

/** The answer of every route to an authenticated request that fails on our side or is limited. */
export const EVERY_ROUTE_ERRORS: readonly ApiErrorKind[] = ['unauthorized', 'too-many-requests', 'internal-error', 'service-unavailable'];

/** What every POST can answer besides its own refusals (a money-moving POST lists `operation-abandoned` itself). */
export const EVERY_POST_ERRORS: readonly ApiErrorKind[] = ['invalid-request', 'idempotency-conflict', 'payload-too-large'];

/** A route's error responses, one per status: its codes and when, a body schema of those codes, an example per kind. */
export function errorResponses(kinds: readonly ApiErrorKind[]): Record<string, ZodOpenApiResponseObject> {
  const byStatus = new Map<number, ApiErrorKind[]>();
  for (const kind of new Set(kinds)) byStatus.set(HTTP_ERRORS[kind].status, [...(byStatus.get(HTTP_ERRORS[kind].status) ?? []), kind]);
  const responses: Record<string, ZodOpenApiResponseObject> = {};
  for (const [status, group] of [...byStatus].sort(([left], [right]) => left - right)) {
    responses[String(status)] = {
      description: group.map((kind) => `${codeAndName(kind)}: ${ERROR_DOCS[kind].when}`).join('\n\n'),
      headers: responseHeaders(status),
      content: {
        'application/json': {
          schema: errorBodySchema(group),
          examples: Object.fromEntries(
            group.map((kind) => [kind, { summary: codeAndName(kind), value: errorBody(kind, ERROR_DOCS[kind].message) }]),
          ),
        },
      },
    };
  }
  return responses;
}

function codeAndName(kind: ApiErrorKind): string {
  const { errorCode, errorName } = HTTP_ERRORS[kind];
  return errorName === undefined ? errorCode : `${errorCode} ${errorName}`;
}

/** The one error shape (DESIGN.md), with the codes and names of these kinds only. */
export function errorBodySchema(kinds: readonly ApiErrorKind[]) {
  const codes = [...new Set(kinds.map((kind) => HTTP_ERRORS[kind].errorCode))];
  const names = [...new Set(kinds.flatMap((kind) => HTTP_ERRORS[kind].errorName ?? []))];
  const nameless = kinds.some((kind) => HTTP_ERRORS[kind].errorName === undefined);
  const errorName = z.enum(names).meta({ description: nameless ? 'The error name (P403 has none).' : 'The error name.' });
  return z.strictObject({
    errorCode: z.enum(codes).meta({ description: 'The error code.' }),
    ...(names.length === 0 ? {} : { errorName: nameless ? errorName.optional() : errorName }),
    errorMessage: z.string().optional().meta({ description: 'What is wrong, one line per problem; never internals.' }),
  });
}
