/** Currency slugs of the API, their scales and the networks crypto can move on. */

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

export const NETWORKS = ['bitcoin', 'dogecoin', 'ethereum', 'litecoin', 'polygon'] as const;
export type Network = (typeof NETWORKS)[number];

/** Networks per crypto currency; the first is the default when a request names none. */
export const CURRENCY_NETWORKS: Readonly<Record<CryptoCurrency, readonly Network[]>> = {
  btc: ['bitcoin'],
  doge: ['dogecoin'],
  eth: ['ethereum'],
  ltc: ['litecoin'],
  pol: ['polygon'],
  usdc: ['ethereum', 'polygon'],
};

export function isCurrency(value: string): value is Currency {
  return (CURRENCIES as readonly string[]).includes(value);
}

export function defaultNetwork(currency: CryptoCurrency): Network {
  const network = CURRENCY_NETWORKS[currency][0];
  if (network === undefined) throw new Error(`no network configured for ${currency}`);
  return network;
}
