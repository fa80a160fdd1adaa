import { createHash } from 'node:crypto';

/**
 * The id of a second ledger transfer that belongs to an operation (e.g. the network fee a failed
 * withdrawal keeps), derived from the operation's id and its purpose: every run of a step computes
 * the same id, so the ledger's idempotency on transfer ids covers it too. A UUID of version 8
 * (RFC 9562, custom) from SHA-256, so it never collides with the operations' random v4 ids.
 */
export function derivedTransferId(operationId: string, purpose: 'kept-network-fee'): string {
  const bytes = createHash('sha256').update(`${purpose}:${operationId.toLowerCase()}`).digest().subarray(0, 16);
  bytes[6] = (bytes[6]! & 0x0f) | 0x80; // version 8
  bytes[8] = (bytes[8]! & 0x3f) | 0x80; // RFC 9562 variant
  const hex = bytes.toString('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}
