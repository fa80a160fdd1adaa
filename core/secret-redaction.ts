// The net under audit details: a secret put there by mistake is not kept in a table nobody can clean.

/** Keys whose values are redacted whatever they hold. */
const SECRET_KEY = /secret|password|passphrase|token|private|seed|mnemonic|xpub|xprv|deposit.?keys|payload.?keys?$|^api.?key$|^key$/i;
/** Values that are secrets whatever their key says: an API key (`pk_…`) or a webhook secret (`whsec_…`). */
const SECRET_VALUE = /^(pk_|whsec_)/;

export const REDACTED = '[redacted]';

/** A copy of `value` with every secret replaced by "[redacted]". */
export function redactSecrets(value: unknown): unknown {
  if (typeof value === 'string') return SECRET_VALUE.test(value) ? REDACTED : value;
  if (Array.isArray(value)) return value.map(redactSecrets);
  if (value !== null && typeof value === 'object') {
    return Object.fromEntries(
      Object.entries(value as Record<string, unknown>).map(([key, inner]) => [key, SECRET_KEY.test(key) ? REDACTED : redactSecrets(inner)]),
    );
  }
  return value;
}
