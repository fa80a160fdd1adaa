/**
 * The catalogue of domain error kinds: which end an operation as a refusal, which no retry can fix, and
 * (api/http/) how each looks over HTTP. HTTP-only kinds live in api/http/http-error.ts. `refusal`: a
 * partner-facing refusal (insufficient funds, …), a normal outcome: the workflow completes UNSUCCESSFUL.
 */
export const DOMAIN_ERRORS = {
  'invalid-request': { refusal: true },
  'invalid-currency': { refusal: true },
  'invalid-user': { refusal: true },
  'partner-not-found': { refusal: true },
  'invalid-exchange-lock': { refusal: true },
  'insufficient-funds': { refusal: true },
  /** Past the partner's rolling 24-hour EUR limit (operator policy: `ops partner set-policy --daily-limit-eur`). */
  'limit-exceeded': { refusal: true },
  /** The partner's policy requires an ACTIVE entry of its withdrawal-address book for the destination, and there is none. */
  'address-not-allowlisted': { refusal: true },
  /** Given up on before anything was held; a tombstone guarantees nothing ever will be. Safe to retry. */
  'operation-abandoned': { refusal: true },
  /** A workflow input the API never accepted (started on Temporal directly, or altered): over HTTP a fault of ours. */
  'unknown-operation': { refusal: true },
  'invalid-month-or-year': { refusal: false },
  'invalid-date': { refusal: false },
  'withdrawal-not-found': { refusal: false },
  'not-found': { refusal: false },
  /** No entry of the partner's withdrawal-address book with this id (unknown, deleted, or another partner's). */
  'withdrawal-address-not-found': { refusal: false },
  'idempotency-conflict': { refusal: false },
  /** A backing service (Postgres, Temporal) cannot be reached: retry later. */
  'service-unavailable': { refusal: false },
  /** The partner already has its bound of operations waiting for their answer (admission.ts): nothing started; retry later. */
  'too-many-operations': { refusal: false },
} as const satisfies Record<string, { refusal: boolean }>;

export type DomainErrorKind = keyof typeof DOMAIN_ERRORS;

export const DOMAIN_ERROR_KINDS = Object.keys(DOMAIN_ERRORS) as DomainErrorKind[];

export function isDomainErrorKind(value: unknown): value is DomainErrorKind {
  return typeof value === 'string' && Object.hasOwn(DOMAIN_ERRORS, value);
}

/** The kinds that end an operation as a refusal, not a failure. */
export const REFUSAL_KINDS: readonly DomainErrorKind[] = DOMAIN_ERROR_KINDS.filter((kind) => DOMAIN_ERRORS[kind].refusal);

/** Activity failures that are not domain errors; `definite` answers say for certain that money did not leave. */
export const ACTIVITY_FAILURES = {
  'broadcast-rejected': { retryable: false, definite: true },
  'transaction-failed': { retryable: false, definite: true },
  'not-confirmed-yet': { retryable: true, definite: false },
  'bank-answer-pending': { retryable: true, definite: false },
  'unknown-bank-reference': { retryable: false, definite: false },
  'operation-conflict': { retryable: false, definite: false },
} as const satisfies Record<string, { retryable: boolean; definite: boolean }>;

export type ActivityFailureType = keyof typeof ACTIVITY_FAILURES;

/** Failure types no retry can change: every domain kind, and the final activity failures. */
export const NON_RETRYABLE_TYPES: readonly string[] = [
  ...DOMAIN_ERROR_KINDS,
  ...(Object.keys(ACTIVITY_FAILURES) as ActivityFailureType[]).filter((type) => !ACTIVITY_FAILURES[type].retryable),
];

/** The chain's or bank's definite answers that the money did not leave. */
export const DEFINITE_FAILURE_TYPES: readonly string[] = (Object.keys(ACTIVITY_FAILURES) as ActivityFailureType[]).filter(
  (type) => ACTIVITY_FAILURES[type].definite,
);

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
