import { z } from 'zod';
import { CRYPTO_CURRENCIES } from '../../core/currencies';
import { CURRENCY_NETWORKS, NETWORKS, defaultNetwork } from '../../core/networks';
import type { CryptoCurrency } from '../../core/currencies';
import type { Network } from '../../core/networks';
import { addProblem } from './validation';

const cryptoCurrency = z
  .string({ error: 'currency is required' })
  .transform((text) => text.toLowerCase())
  .pipe(z.enum(CRYPTO_CURRENCIES, { error: `currency must be one of ${CRYPTO_CURRENCIES.join(', ')}` }))
  .meta({
    description: 'The crypto currency whose withdrawal fee to quote (letter case is ignored).',
    override: { enum: [...CRYPTO_CURRENCIES], examples: ['usdc'] },
  });

/** "btc: bitcoin, doge: dogecoin, …": each currency with a single network, and that network, from the currency table. */
export const SINGLE_NETWORKS_TEXT = CRYPTO_CURRENCIES.filter((currency) => CURRENCY_NETWORKS[currency].length === 1)
  .map((currency) => `${currency}: ${CURRENCY_NETWORKS[currency].join(', ')}`)
  .join(', ');

/** Query of get-network-fee: a crypto currency, and optionally one of its networks (any letter case). */
export const networkFeeQuerySchema = z
  .object({
    currency: cryptoCurrency,
    network: z
      .string()
      .optional()
      .meta({
        description: `One of the currency's networks: for usdc polygon, or ethereum (the default when omitted); every other currency has one network, which may be sent or omitted (${SINGLE_NETWORKS_TEXT}). Letter case is ignored; a network the currency does not move on is refused.`,
        enum: [...NETWORKS],
        examples: ['polygon'],
      }),
  })
  .transform((query, context): { currency: CryptoCurrency; network: Network } => {
    const network = resolveNetwork(query.currency, query.network);
    if (typeof network === 'string') return { currency: query.currency, network };
    addProblem(context, 'network', network.problem);
    return z.NEVER;
  });

/** The network a request means, or why not; a currency's only network is accepted as if omitted (clients may always send it). */
export function resolveNetwork(currency: CryptoCurrency, requested: string | undefined): Network | { problem: string } {
  if (requested === undefined) return defaultNetwork(currency);
  const networks = CURRENCY_NETWORKS[currency];
  const network = networks.find((candidate) => candidate === requested.toLowerCase());
  if (network !== undefined) return network;
  return networks.length === 1
    ? { problem: `network must be ${networks.join(', ')} for ${currency} (its only network), or omitted` }
    : { problem: `network must be one of ${networks.join(', ')} for ${currency}` };
}
