/** Writing text into the ISO 20022 documents we build (pain.001, the simulated bank's camt.054). */

const XML_ESCAPES: Readonly<Record<string, string>> = {
  '&': '&amp;',
  '<': '&lt;',
  '>': '&gt;',
  '"': '&quot;',
  "'": '&apos;',
};

/** XML 1.0 Char production: no controls other than tab/LF/CR, no lone surrogates, no U+FFFE/U+FFFF. */
export function isXmlChar(codePoint: number): boolean {
  return (
    codePoint === 0x9 ||
    codePoint === 0xa ||
    codePoint === 0xd ||
    (codePoint >= 0x20 && codePoint <= 0xd7ff) ||
    (codePoint >= 0xe000 && codePoint <= 0xfffd) ||
    (codePoint >= 0x10000 && codePoint <= 0x10ffff)
  );
}

/** Escapes every text value; refuses characters XML 1.0 cannot represent even escaped. */
export function xmlText(value: string): string {
  for (const char of value) {
    if (!isXmlChar(char.codePointAt(0) ?? 0)) throw new Error('text contains a character XML cannot carry');
  }
  return value.replace(/[&<>"']/g, (char) => XML_ESCAPES[char] ?? char);
}
