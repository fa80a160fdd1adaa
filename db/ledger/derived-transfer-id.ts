import { createHash } from 'node:crypto';

/**
 * The id of an operation's second transfer, the same on every run of a step, so the ledger's idempotency covers it: a
 * UUID v8 from SHA-256, never colliding with the operations' random v4 ids.
 */
export function derivedTransferId(operationId: string, purpose: 'kept-network-fee' | 'network-fee-paid' | 'sweep-network-fee'): string {
  const bytes = createHash('sha256').update(`${purpose}:${operationId.toLowerCase()}`).digest().subarray(0, 16);
  bytes[6] = (bytes[6]! & 0x0f) | 0x80; // version 8
  bytes[8] = (bytes[8]! & 0x3f) | 0x80; // RFC 9562 variant
  const hex = bytes.toString('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}
