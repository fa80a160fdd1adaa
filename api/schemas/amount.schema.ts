import { z } from 'zod';
import { CURRENCY_SCALE } from '../../core/currencies';
import { textLength } from '../../core/payment-limits';
import { isJsonNumber, jsonNumber } from '../http/exact-json';
import { MAX_AMOUNT_TEXT_LENGTH, parseAmountText } from './amount-text';

export { amountScaleProblem } from './amount-text';

const AMOUNT_RULES =
  'An exact decimal (never a binary float): a JSON number with as many digits as needed, or a decimal string. ' +
  `Greater than zero, at most ${MAX_AMOUNT_TEXT_LENGTH} characters, an exponent of at most three digits, and no more ` +
  `decimals than the currency allows (${Object.entries(CURRENCY_SCALE)
    .map(([currency, scale]) => `${currency} ${scale}`)
    .join(', ')}).`;

/** A JSON number (kept losslessly) or a decimal string, out as exact decimal text; the scale is checked where the currency is known. */
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
    description: AMOUNT_RULES,
    // Examples of a transforming schema survive only as an override (zod keeps examples for outputs).
    override: { examples: [jsonNumber('0.000000000000000001'), '12.50'] },
  });

/** An amount field of a request body: its meaning there, then every amount's rules (for the document; amountSchema validates). */
export function amountField(meaning: string, examples: unknown[]) {
  return amountSchema.meta({ description: `${meaning} ${AMOUNT_RULES}`, override: { examples } });
}

const slug = z.string().trim().toLowerCase();

/** A currency slug in any letter case ("BTC" is btc); the document names the canonical slugs. */
export const currencyField = <const S extends readonly string[]>(
  slugs: S,
  description: string,
  example: string,
  error = `currency must be one of ${slugs.join(', ')}`,
) => slug.pipe(z.enum(slugs, { error })).meta({ description, override: { enum: [...slugs], examples: [example] } });

/** Lengths count characters (code points), as the limits do: an astral character is one. */
export const fitsIn = (max: number) => (text: string) => textLength(text) <= max;
