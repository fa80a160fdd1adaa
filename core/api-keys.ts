import { createHash, randomBytes } from 'node:crypto';

/** Keys carry 256 random bits, so a fast hash is enough: there is nothing to brute-force. */
const KEY_PREFIX = 'pk_';

/** What a key may do: `read` only reads (GET), `payments` everything (the default). */
export const API_KEY_SCOPES = ['read', 'payments'] as const;
export type ApiKeyScope = (typeof API_KEY_SCOPES)[number];

/** An active (not revoked) key as authentication needs it: whose, what it may do, and until when. */
export interface ActiveApiKey {
  apiKeyId: string;
  partnerId: string;
  scope: ApiKeyScope;
  /** Null: it does not expire. A key is expired from this instant on. */
  expiresAt: Date | null;
}

export function isApiKeyExpired(key: { expiresAt: Date | null }, now: Date): boolean {
  return key.expiresAt !== null && key.expiresAt.getTime() <= now.getTime();
}

export function generateApiKey(): string {
  return KEY_PREFIX + randomBytes(32).toString('base64url');
}

export function hashApiKey(apiKey: string): string {
  return createHash('sha256').update(apiKey, 'utf8').digest('hex');
}

/** What operators see of a key: enough to tell keys apart, useless to an attacker. */
export function apiKeyDisplayPrefix(apiKey: string): string {
  return apiKey.slice(0, KEY_PREFIX.length + 6);
}
