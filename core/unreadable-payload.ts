/**
 * What a worker's codec hands on in place of an unreadable payload (not encrypted with our key), for
 * workflows/payload-guard.interceptor.ts to stop where it arrives (its messages say "refused"). Throwing in the codec would fail the whole workflow task: a plaintext
 * signal could jam a running withdrawal. Pure: the workflow bundle imports it.
 */
export const UNREADABLE_PAYLOAD_KEY = '$refusedPayload';

export type UnreadablePayload = { readonly [UNREADABLE_PAYLOAD_KEY]: string };

export function unreadablePayload(reason: string): UnreadablePayload {
  return { [UNREADABLE_PAYLOAD_KEY]: reason };
}

export function isUnreadablePayload(value: unknown): value is UnreadablePayload {
  return typeof value === 'object' && value !== null && typeof (value as Record<string, unknown>)[UNREADABLE_PAYLOAD_KEY] === 'string';
}

/** Why the first unreadable value among `values` could not be read, or undefined when all could. */
export function unreadablePayloadReason(values: readonly unknown[]): string | undefined {
  return values.find(isUnreadablePayload)?.[UNREADABLE_PAYLOAD_KEY];
}
