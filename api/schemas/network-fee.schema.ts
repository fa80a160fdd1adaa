import { z } from 'zod';
import { CRYPTO_CURRENCIES, CURRENCY_NETWORKS, defaultNetwork, hasNetworkChoice } from '../../core/currencies';
import type { CryptoCurrency, Network } from '../../core/currencies';

const cryptoCurrency = z
  .string({ error: 'currency is required' })
  .transform((text) => text.toLowerCase())
  .pipe(z.enum(CRYPTO_CURRENCIES, { error: `currency must be one of ${CRYPTO_CURRENCIES.join(', ')}` }))
  .meta({
    description: 'The crypto currency whose withdrawal fee to quote (letter case is ignored).',
    override: { enum: [...CRYPTO_CURRENCIES], examples: ['usdc'] },
  });

/** Query of get-network-fee: a crypto currency, and a network only for usdc (any letter case). */
export const networkFeeQuerySchema = z
  .object({
    currency: cryptoCurrency,
    network: z
      .string()
      .optional()
      .meta({
        description:
          'Only for usdc: polygon, or ethereum (the default when omitted). Letter case is ignored; any other currency refuses it.',
        enum: [...CURRENCY_NETWORKS.usdc],
        examples: ['polygon'],
      }),
  })
  .transform((query, context): { currency: CryptoCurrency; network: Network } => {
    const network = resolveNetwork(query.currency, query.network);
    if (typeof network === 'string') return { currency: query.currency, network };
    context.addIssue({ code: 'custom', path: ['network'], message: network.problem });
    return z.NEVER;
  });

/** The network a request means, or the reason it names none that exists for the currency. */
export function resolveNetwork(currency: CryptoCurrency, requested: string | undefined): Network | { problem: string } {
  if (requested === undefined) return defaultNetwork(currency);
  if (!hasNetworkChoice(currency)) return { problem: `network is only accepted for usdc, not for ${currency}` };
  const network = CURRENCY_NETWORKS[currency].find((candidate) => candidate === requested.toLowerCase());
  return network ?? { problem: `network must be one of ${CURRENCY_NETWORKS[currency].join(', ')} for ${currency}` };
}
