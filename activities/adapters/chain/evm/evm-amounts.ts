import { parseUnits } from 'viem';
import type { CryptoCurrency } from '../../../../core/currencies';
import { NETWORK_DECLARATIONS, isToken } from '../../../../core/networks';
import type { EvmCurrency, EvmNetwork } from '../../../../core/networks';

/** What a withdrawal of `currency` on `network` is on chain, or an error for a pair the network does not move. */
export function transferKind(currency: CryptoCurrency, network: EvmNetwork): { kind: 'native' | 'token'; currency: EvmCurrency } {
  if (currency === NETWORK_DECLARATIONS[network].nativeCurrency) return { kind: 'native', currency: currency };
  if (isToken(currency, network)) return { kind: 'token', currency: currency as EvmCurrency };
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
