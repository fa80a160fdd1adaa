import { createHash, randomBytes } from 'node:crypto';

/** Keys carry 256 random bits, so a fast hash is enough: there is nothing to brute-force. */
const KEY_PREFIX = 'pk_';

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
