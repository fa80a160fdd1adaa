import { z } from 'zod';
import { CURRENCY_SCALE } from '../../core/currencies';
import { isJsonNumber, jsonNumber } from '../http/exact-json';
import { MAX_AMOUNT_TEXT_LENGTH, parseAmountText } from './amount-text';

export { amountScaleProblem } from './amount-text';

/**
 * An amount as a JSON number (kept losslessly) or a decimal string; out comes the exact decimal
 * text. Its length, form, sign and size are checked as text first (parseAmountText); the scale
 * of the currency is checked where the currency is known (see amountScaleProblem).
 */
export const amountSchema = z
  .union(
    [
      z.custom<{ toString(): string }>(isJsonNumber).meta({
        type: 'number',
        description: 'A JSON number, read digit for digit: never rounded through a binary float.',
      }),
      z.string().meta({ description: 'The same decimal as a string, e.g. "12.50".' }),
    ],
    { error: 'amount must be a number or a decimal string' },
  )
  .transform((value, context) => {
    const parsed = parseAmountText(String(value));
    if ('problem' in parsed) {
      context.addIssue({ code: 'custom', message: parsed.problem });
      return z.NEVER;
    }
    return parsed.amount;
  })
  .meta({
    description: amountRules(),
    // Examples of a transforming schema survive only as an override (zod keeps examples for outputs).
    override: { examples: [jsonNumber('0.000000000000000001'), '12.50'] },
  });

/**
 * An amount field of a request body: what it means there, then the rules every amount follows
 * (for the OpenAPI document; validation is amountSchema's).
 */
export function amountField(meaning: string, examples: unknown[]) {
  return amountSchema.meta({ description: `${meaning} ${amountRules()}`, override: { examples } });
}

function amountRules(): string {
  return (
    'An exact decimal (never a binary float): a JSON number with as many digits as needed, or a decimal string. ' +
    `Greater than zero, at most ${MAX_AMOUNT_TEXT_LENGTH} characters, an exponent of at most three digits, and no more ` +
    `decimals than the currency allows (${scalesText()}).`
  );
}

function scalesText(): string {
  return Object.entries(CURRENCY_SCALE)
    .map(([currency, scale]) => `${currency} ${scale}`)
    .join(', ');
}

/** Lower-cases a slug so "BTC" and "btc" name the same currency. */
export const slug = z.string().trim().toLowerCase();
