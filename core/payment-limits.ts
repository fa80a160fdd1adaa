// Limits of downstream formats and stores: the API refuses what the builders would (DESIGN.md: Off the happy path).

/** Length in code points, as ISO 20022 schemas and Postgres count, not UTF-16 units: "𝔸" is one character. */
export function textLength(value: string): number {
  return [...value].length;
}

// ── pain.001 (ISO 20022 pain.001.001.09, EPC SEPA credit transfer rulebook) ──

/** The EPC Latin character set for free text: banks may reject or silently mangle anything else. */
export const SEPA_TEXT_PATTERN: RegExp = /^[A-Za-z0-9/\-?:().,'+ ]+$/;

/** Someone else's text held to the SEPA set: accents dropped, other characters spaced, cut; nothing left is NOTPROVIDED (EPC). */
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

/** A NATURAL receiver's pain.001 creditor name: both names (and the space) must fit one Max70Text. */
export function sepaNaturalPersonName(firstName: string, lastName: string): string {
  return `${firstName} ${lastName}`.trim();
}

// ── Crypto withdrawals ──

/** No chain format needs more; the beneficiary name becomes an IVMS101 Max100Text name (whole when it has no space). */
export const CRYPTO_WITHDRAWAL_LIMITS = {
  beneficiaryNameMaxLength: 100,
  memoMaxLength: 256,
  walletAddressMaxLength: 128,
  externalUserIdMaxLength: 255,
} as const;
