/**
 * Limits that a downstream format or store imposes, declared once. The API refuses whatever
 * breaks them and the formats' builders check the same numbers, so a request the API accepts
 * can always be carried to the end (DESIGN.md: Off the happy path).
 */

/**
 * Length in characters (Unicode code points), as ISO 20022 schemas and Postgres count, not
 * UTF-16 units: an astral character such as "𝔸" is one character.
 */
export function textLength(value: string): number {
  let length = value.length;
  // Each surrogate pair is two UTF-16 units but one character.
  for (let index = 0; index < value.length - 1; index += 1) {
    const unit = value.charCodeAt(index);
    const next = value.charCodeAt(index + 1);
    if (unit >= 0xd800 && unit <= 0xdbff && next >= 0xdc00 && next <= 0xdfff) {
      length -= 1;
      index += 1;
    }
  }
  return length;
}

// ── pain.001 (ISO 20022 pain.001.001.09, EPC SEPA credit transfer rulebook) ──

/**
 * The SEPA (EPC) Latin character set for free text (names, remittance information). Banks may
 * reject or silently mangle anything else.
 */
export const SEPA_TEXT_PATTERN: RegExp = /^[A-Za-z0-9/\-?:().,'+ ]+$/;

/**
 * Someone else's text (a debtor's name from a camt.054) held to the SEPA set for a message we
 * write: letters lose their accents, anything else outside the set becomes a space, then it is cut
 * at `maxLength` characters; text with nothing left is NOTPROVIDED, the EPC's word for it.
 */
export function toSepaText(value: string, maxLength: number): string {
  const text = value
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .replace(/[^A-Za-z0-9/\-?:().,'+ ]/g, ' ')
    .replace(/ +/g, ' ')
    .trim();
  const cut = text.slice(0, maxLength).trim();
  return cut.length > 0 ? cut : 'NOTPROVIDED';
}

/** IBAN2007Identifier: the electronic form only, no spaces, dashes or lower case. */
export const IBAN_ELECTRONIC_PATTERN = /^[A-Z]{2}[0-9]{2}[A-Z0-9]{1,30}$/;

/** Max70Text: debtor and creditor names. */
export const SEPA_NAME_MAX_LENGTH = 70;

/** Max140Text: unstructured remittance information (the transfer title). */
export const SEPA_REMITTANCE_MAX_LENGTH = 140;

/** EPC rulebook: a SEPA credit transfer is 0.01 to 999999999.99 EUR. */
export const SEPA_MAX_AMOUNT = '999999999.99';

/** EUR has two decimals, and pain.001 writes exactly two. */
export const SEPA_AMOUNT_SCALE = 2;

/**
 * The creditor name a NATURAL receiver gets in pain.001: one Max70Text for both names, so the
 * two together (with the space between) must fit.
 */
export function sepaNaturalPersonName(firstName: string, lastName: string): string {
  return `${firstName} ${lastName}`.trim();
}

// ── Crypto withdrawals ──

/**
 * Bounds of the withdrawal's text fields. No chain format needs more (the longest address is
 * far under 128, memos and destination tags far under 256). The beneficiary name becomes an
 * IVMS101 name (primaryIdentifier, legalPersonName: Max100Text), whole when it has no space.
 */
export const CRYPTO_WITHDRAWAL_LIMITS = {
  beneficiaryNameMaxLength: 100,
  memoMaxLength: 256,
  walletAddressMaxLength: 128,
  externalUserIdMaxLength: 255,
} as const;
