import { parse } from 'lossless-json';
import type { Currency } from './currencies';
import { CURRENCIES } from './currencies';
import { isDecimalString } from './money';

/** EUR price of one unit of each currency, as exact decimal strings (eur is 1 by definition). */
export type EurRates = Readonly<Record<Currency, string>>;

/** The configured rate table used when no EXCHANGE_RATES_JSON is given. */
export const DEFAULT_EUR_RATES: EurRates = {
  eur: '1',
  btc: '85000',
  doge: '0.15',
  eth: '3000',
  ltc: '80',
  pol: '0.2',
  usdc: '0.92',
};

/** Reads a rate table from JSON text, e.g. {"btc":"90000.5"}; unnamed currencies keep defaults. */
export function parseRateTable(jsonText: string | undefined): EurRates {
  if (!jsonText) return DEFAULT_EUR_RATES;
  // Parsed losslessly: a rate written as a JSON number keeps every digit it was given.
  const parsed: unknown = parse(jsonText, undefined, (digits) => digits);
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) throw new Error('EXCHANGE_RATES_JSON must be an object');
  const rates: Record<string, string> = { ...DEFAULT_EUR_RATES };
  for (const [currency, rate] of Object.entries(parsed)) {
    if (!(CURRENCIES as readonly string[]).includes(currency)) throw new Error(`unknown currency in rates: ${currency}`);
    if (typeof rate !== 'string' || !isDecimalString(rate) || Number(rate) <= 0) {
      throw new Error(`rate for ${currency} must be a positive decimal`);
    }
    rates[currency] = rate;
  }
  if (rates.eur !== '1') throw new Error('the eur rate is 1 by definition');
  return rates as EurRates;
}
