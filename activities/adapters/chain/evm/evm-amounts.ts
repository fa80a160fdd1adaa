import { parseUnits } from 'viem';
import type { CryptoCurrency, Network } from '../../../../core/currencies';

/** The networks the EVM adapter serves, and the currencies it sends on them. */
export const EVM_NETWORKS = ['ethereum', 'polygon'] as const;
export type EvmNetwork = (typeof EVM_NETWORKS)[number];
export type EvmCurrency = 'eth' | 'pol' | 'usdc';

/** The coin each network pays its fees in and sends as a plain value transfer. */
export const NATIVE_CURRENCY: Readonly<Record<EvmNetwork, EvmCurrency>> = { ethereum: 'eth', polygon: 'pol' };

/** On-chain decimals: the native coins count in wei (18), USDC in millionths on both networks. */
export const EVM_DECIMALS: Readonly<Record<EvmCurrency, number>> = { eth: 18, pol: 18, usdc: 6 };

export function isEvmNetwork(network: Network): network is EvmNetwork {
  return (EVM_NETWORKS as readonly string[]).includes(network);
}

/** What a withdrawal of `currency` on `network` is on chain, or an error for a pair the adapter does not send. */
export function transferKind(currency: CryptoCurrency, network: EvmNetwork): { kind: 'native' | 'token'; currency: EvmCurrency } {
  if (currency === NATIVE_CURRENCY[network]) return { kind: 'native', currency };
  if (currency === 'usdc') return { kind: 'token', currency };
  throw new Error(`${currency} is not sent on ${network}`);
}

const DECIMAL = /^(0|[1-9][0-9]*)(?:\.([0-9]+))?$/;

/**
 * An exact decimal string in units of the currency as the integer the chain counts (wei, or the
 * token's smallest unit). Refuses what would need rounding (viem's parseUnits rounds digits
 * beyond `decimals`), signs, exponents and zero: a withdrawal never sends a different amount.
 */
export function toBaseUnits(amount: string, decimals: number): bigint {
  if (!Number.isInteger(decimals) || decimals < 0 || decimals > 77) throw new Error(`invalid decimals ${decimals}`);
  const match = DECIMAL.exec(amount);
  if (!match || amount.length > 100) throw new Error(`amount ${JSON.stringify(amount.slice(0, 100))} is not a plain decimal`);
  const fraction = (match[2] ?? '').replace(/0+$/, '');
  if (fraction.length > decimals) throw new Error(`amount ${amount} has more than ${decimals} decimal places`);
  const units = parseUnits(amount, decimals);
  if (units <= 0n) throw new Error('amount must be positive');
  return units;
}
