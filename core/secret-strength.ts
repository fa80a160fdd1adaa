import { randomBytes } from 'node:crypto';

/**
 * Rules for a secret an operator chose (a bearer token). The entropy estimate cannot see a word list, so
 * it only refuses what is surely too weak: generate tokens (`openssl rand -hex 32`) rather than invent them.
 */
export const SECRET_RULES = { minLength: 32, minDistinctCharacters: 10, minEntropyBits: 128 } as const;

/** Character classes and the alphabet each suggests when present. */
const CLASSES: ReadonlyArray<{ test: RegExp; size: number }> = [
  { test: /[a-z]/, size: 26 },
  { test: /[A-Z]/, size: 26 },
  { test: /[0-9]/, size: 10 },
  // Printable ASCII punctuation and space: 33 characters.
  { test: /[ -/:-@[-`{-~]/, size: 33 },
  // Anything else (non-ASCII): counted as one more class of that size, no more.
  { test: /[^ -~]/u, size: 33 },
];

/** 256 random bits as 64 hex digits (URL-safe: the Web UI carries the codec token in a path), checked like any other. */
export function generateStrongSecret(): string {
  for (;;) {
    const secret = randomBytes(32).toString('hex');
    // Fewer than 10 distinct hex digits out of 64 has a chance of about 1e-20; checked all the same.
    if (secretWeakness(secret) === undefined) return secret;
  }
}

/** length × log2(alphabet), the alphabet guessed from the classes present; counted in code points. */
export function estimatedEntropyBits(secret: string): number {
  const alphabet = CLASSES.filter(({ test }) => test.test(secret)).reduce((sum, { size }) => sum + size, 0);
  return alphabet === 0 ? 0 : [...secret].length * Math.log2(alphabet);
}

/**
 * The rule a secret breaks, as a phrase that reads after its variable's name ("must be at least
 * 32 characters long"), or undefined for a strong one. Never quotes the secret.
 */
export function secretWeakness(secret: string): string | undefined {
  const characters = [...secret];
  if (characters.length < SECRET_RULES.minLength)
    return `must be at least ${SECRET_RULES.minLength} characters long (it has ${characters.length})`;
  const distinct = new Set(characters).size;
  if (distinct < SECRET_RULES.minDistinctCharacters)
    return `must have at least ${SECRET_RULES.minDistinctCharacters} different characters (it has ${distinct})`;
  const bits = estimatedEntropyBits(secret);
  if (bits < SECRET_RULES.minEntropyBits)
    return `must carry at least ${SECRET_RULES.minEntropyBits} bits of entropy by length × log2(alphabet) (about ${Math.floor(bits)}): make it longer or use more kinds of characters, e.g. openssl rand -hex 32`;
  return undefined;
}
