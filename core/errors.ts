/**
 * The one error model of the service. Domain code throws DomainError with a kind; the API maps
 * kinds to HTTP statuses and error codes in one place (api/errors/error-mapping.ts), and
 * activities turn them into non-retryable Temporal failures whose type is the kind.
 */
export const DOMAIN_ERROR_KINDS = [
  'invalid-request',
  'unauthorized',
  'invalid-month-or-year',
  'not-found',
  'idempotency-conflict',
  'invalid-currency',
  'invalid-user',
  'payload-too-large',
  'partner-not-found',
  'withdrawal-not-found',
  'too-many-requests',
  'invalid-exchange-lock',
  'insufficient-funds',
  'invalid-date',
  'internal-error',
  'service-unavailable',
  /** Given up before anything was held; a tombstone guarantees nothing ever will be. Safe to retry. */
  'operation-abandoned',
] as const;

export type DomainErrorKind = (typeof DOMAIN_ERROR_KINDS)[number];

export function isDomainErrorKind(value: unknown): value is DomainErrorKind {
  return typeof value === 'string' && (DOMAIN_ERROR_KINDS as readonly string[]).includes(value);
}

export class DomainError extends Error {
  override readonly name = 'DomainError';

  /** `detail` is shown to the partner as errorMessage: it must never carry internals. */
  constructor(
    readonly kind: DomainErrorKind,
    readonly detail?: string,
  ) {
    super(detail ? `${kind}: ${detail}` : kind);
  }
}

/** Guards an invariant that no input can break; a failure is a bug, never a partner's error. */
export function assertInvariant(condition: unknown, message: string): asserts condition {
  if (!condition) throw new Error(`invariant violated: ${message}`);
}
