/** Errors only HTTP has: they never come from an operation, so they are not domain kinds. */
export const HTTP_ERROR_KINDS = ['unauthorized', 'key-not-permitted', 'payload-too-large', 'too-many-requests', 'internal-error'] as const;
export type HttpErrorKind = (typeof HTTP_ERROR_KINDS)[number];

export class HttpError extends Error {
  override readonly name = 'HttpError';

  /** `detail` is shown to the caller as errorMessage: it must never carry internals. */
  constructor(
    readonly kind: HttpErrorKind,
    readonly detail?: string,
  ) {
    super(detail ? `${kind}: ${detail}` : kind);
  }
}
