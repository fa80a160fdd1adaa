import type { EurRates } from '../core/rates';
import type { RateSource } from './dependencies';

/** The default rate source: the configured table, the same for every call. */
export function configuredRateSource(rates: EurRates): RateSource {
  return { currentEurRates: async () => rates };
}
