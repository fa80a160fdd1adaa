/**
 * What a worker's codec hands on in place of a refused payload, for workflows/payload-guard.interceptor.ts
 * to refuse where it arrives. Throwing in the codec would fail the whole workflow task: a plaintext
 * signal could jam a running withdrawal. Pure: the workflow bundle imports it.
 */
export const REFUSED_PAYLOAD_KEY = '$refusedPayload';

export type RefusedPayload = { readonly [REFUSED_PAYLOAD_KEY]: string };

export function refusedPayload(reason: string): RefusedPayload {
  return { [REFUSED_PAYLOAD_KEY]: reason };
}

export function isRefusedPayload(value: unknown): value is RefusedPayload {
  return typeof value === 'object' && value !== null && typeof (value as Record<string, unknown>)[REFUSED_PAYLOAD_KEY] === 'string';
}

/** The reason of the first refused value among `values`, or undefined when none is. */
export function refusedPayloadReason(values: readonly unknown[]): string | undefined {
  const refused = values.find(isRefusedPayload);
  return refused?.[REFUSED_PAYLOAD_KEY];
}
