/** Why a string is refused, or undefined: Postgres refuses NUL, jsonb lone surrogates. Pure: workflow code uses it. */
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
