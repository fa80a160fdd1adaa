import { z } from 'zod';
import { CURRENCY_SCALE } from '../../core/currencies';
import type { Currency } from '../../core/currencies';
import { Decimal, MAX_AMOUNT } from '../../core/money';
import { isJsonNumber } from '../http/exact-json';

/**
 * An amount as a JSON number (kept losslessly) or a decimal string; out comes the exact decimal
 * text. Zero, negative, non-finite and absurdly large amounts are refused here; the scale of the
 * currency is checked where the currency is known (see amountScaleProblem).
 */
export const amountSchema = z
  .union([z.custom<{ toString(): string }>(isJsonNumber), z.string()], { error: 'amount must be a number or a decimal string' })
  .transform((value, context) => {
    const text = String(value).trim();
    if (!/^[+-]?(\d+\.?\d*|\.\d+)(e[+-]?\d+)?$/i.test(text)) {
      context.addIssue({ code: 'custom', message: 'amount must be a decimal number' });
      return z.NEVER;
    }
    const amount = new Decimal(text);
    if (!amount.isFinite() || amount.lte(0)) {
      context.addIssue({ code: 'custom', message: 'amount must be greater than zero' });
      return z.NEVER;
    }
    if (amount.gt(MAX_AMOUNT)) {
      context.addIssue({ code: 'custom', message: `amount must be at most ${MAX_AMOUNT.toFixed()}` });
      return z.NEVER;
    }
    return amount.toFixed();
  });

export function amountScaleProblem(amount: string, currency: Currency): string | undefined {
  const scale = CURRENCY_SCALE[currency];
  return new Decimal(amount).decimalPlaces() > scale ? `amount must have at most ${scale} decimals for ${currency}` : undefined;
}

/** Lower-cases a slug so "BTC" and "btc" name the same currency. */
export const slug = z.string().trim().toLowerCase();
