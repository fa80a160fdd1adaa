import { CURRENCY_SCALE } from '../../core/currencies';
import type { Currency } from '../../core/currencies';
import { Decimal, MAX_AMOUNT } from '../../core/money';

/** Checked as text first: "1e-100000000" or 60,000 digits cost a decimal library seconds and gigabytes; afterwards each step is bounded. */
export const MAX_AMOUNT_TEXT_LENGTH = 64;

/** Linear: each character can match exactly one part of the pattern, so there is nothing to backtrack into. */
const AMOUNT_TEXT_PATTERN = /^[+-]?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][+-]?\d{1,3})?$/;
const LONG_EXPONENT = /[eE][+-]?\d{4,}$/;

export type AmountTextResult = { amount: string } | { problem: string };

/** The exact decimal text ("1.5", never "1.5e0") of a positive amount ≤ MAX_AMOUNT, or why the text is not one. */
export function parseAmountText(text: string): AmountTextResult {
  if (text.length > MAX_AMOUNT_TEXT_LENGTH) return { problem: `amount must be at most ${MAX_AMOUNT_TEXT_LENGTH} characters` };
  const trimmed = text.trim();
  if (!AMOUNT_TEXT_PATTERN.test(trimmed)) {
    if (LONG_EXPONENT.test(trimmed)) return { problem: 'amount must have an exponent of at most 3 digits' };
    return { problem: 'amount must be a decimal number' };
  }
  const amount = new Decimal(trimmed);
  if (amount.lte(0)) return { problem: 'amount must be greater than zero' };
  if (amount.gt(MAX_AMOUNT)) return { problem: `amount must be at most ${MAX_AMOUNT.toFixed()}` };
  // Bounded: at most 64 digits and an exponent above -1000 make at most ~1070 characters.
  return { amount: amount.toFixed() };
}

/** Decimals beyond the currency's scale; "1.50" has one decimal (the value counts, not the text). */
export function amountScaleProblem(amount: string, currency: Currency): string | undefined {
  const scale = CURRENCY_SCALE[currency];
  return new Decimal(amount).decimalPlaces() > scale ? `amount must have at most ${scale} decimals for ${currency}` : undefined;
}
