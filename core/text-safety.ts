/**
 * Text every store and format of this service can carry: no control characters (Postgres refuses
 * NUL in text, jsonb refuses it escaped) and well-formed Unicode (jsonb refuses lone surrogates).
 * Pure: the API and the travel-rule Update's validator (in workflow code) share it.
 */

/** Why a string is refused, or undefined. Linear in its length. */
export function stringProblem(text: string): string | undefined {
  if (hasControlCharacter(text)) return 'must not contain control characters';
  if (!text.isWellFormed()) return 'must be well-formed Unicode (it contains a lone surrogate)';
  return undefined;
}

/** U+0000–U+001F and U+007F (DEL). */
function hasControlCharacter(text: string): boolean {
  for (let index = 0; index < text.length; index += 1) {
    const unit = text.charCodeAt(index);
    if (unit <= 0x1f || unit === 0x7f) return true;
  }
  return false;
}
