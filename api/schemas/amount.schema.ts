import { z } from 'zod';
import { isJsonNumber } from '../http/exact-json';
import { parseAmountText } from './amount-text';

export { amountScaleProblem } from './amount-text';

/**
 * An amount as a JSON number (kept losslessly) or a decimal string; out comes the exact decimal
 * text. Its length, form, sign and size are checked as text first (parseAmountText); the scale
 * of the currency is checked where the currency is known (see amountScaleProblem).
 */
export const amountSchema = z
  .union([z.custom<{ toString(): string }>(isJsonNumber), z.string()], { error: 'amount must be a number or a decimal string' })
  .transform((value, context) => {
    const parsed = parseAmountText(String(value));
    if ('problem' in parsed) {
      context.addIssue({ code: 'custom', message: parsed.problem });
      return z.NEVER;
    }
    return parsed.amount;
  });

/** Lower-cases a slug so "BTC" and "btc" name the same currency. */
export const slug = z.string().trim().toLowerCase();
