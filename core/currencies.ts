/** Currency slugs of the API and their scales; the networks crypto moves on: core/networks.ts. */

export const FIAT_CURRENCIES = ['eur'] as const;
export const CRYPTO_CURRENCIES = ['btc', 'doge', 'eth', 'ltc', 'pol', 'usdc'] as const;
export const CURRENCIES = [...FIAT_CURRENCIES, ...CRYPTO_CURRENCIES] as const;

export type FiatCurrency = (typeof FIAT_CURRENCIES)[number];
export type CryptoCurrency = (typeof CRYPTO_CURRENCIES)[number];
export type Currency = (typeof CURRENCIES)[number];

/** Decimal places each currency allows (DESIGN.md: Money). */
export const CURRENCY_SCALE: Readonly<Record<Currency, number>> = {
  eur: 2,
  btc: 8,
  ltc: 8,
  doge: 8,
  eth: 18,
  pol: 18,
  usdc: 6,
};

export function isCurrency(value: string): value is Currency {
  return (CURRENCIES as readonly string[]).includes(value);
}
