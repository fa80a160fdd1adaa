import { setting } from '../setting';
import { milliseconds, optionalDecimal } from '../values';

/**
 * EVM_SWEEP_THRESHOLD_<CURRENCY> and UTXO_SWEEP_THRESHOLD_<CURRENCY> when unset: a deployment's (gas
 * on a main network costs a few dollars a sweep; a UTXO sweep pays about 68 vB per deposit it
 * takes, so it waits for a batch), and `npm start`'s (a developer's test deposit is swept).
 */
export const SWEEP_THRESHOLD_DEFAULTS = {
  deployment: { eth: '0.05', pol: '50', usdc: '50', btc: '0.01', ltc: '1', doge: '1000' },
  development: { eth: '0.001', pol: '1', usdc: '1', btc: '0.0001', ltc: '0.001', doge: '1' },
} as const;

export type SweptCurrency = keyof typeof SWEEP_THRESHOLD_DEFAULTS.deployment;

const EVM_SWEPT = ['eth', 'pol', 'usdc'] as const;

const threshold = (currency: SweptCurrency) =>
  setting(
    `${(EVM_SWEPT as readonly string[]).includes(currency) ? 'EVM' : 'UTXO'}_SWEEP_THRESHOLD_${currency.toUpperCase()}`,
    optionalDecimal(SWEEP_THRESHOLD_DEFAULTS.deployment[currency]),
    (EVM_SWEPT as readonly string[]).includes(currency)
      ? `a deposit address is swept to the hot wallet once its credited, unswept ${currency} adds up to more than this (a plain decimal)`
      : `the network's credited, unswept ${currency} deposits are swept to the hot wallet, up to 200 in one transaction, once they add up to at least this (a plain decimal)`,
    {
      shownDefault: `\`${SWEEP_THRESHOLD_DEFAULTS.deployment[currency]}\` (\`npm start\`: \`${SWEEP_THRESHOLD_DEFAULTS.development[currency]}\`)`,
    },
  );

/** Sweeping credited deposits from partners' addresses to the hot wallet (activities/evm-sweep.activities.ts). */
export const SWEEP_SETTINGS = {
  sweeps: {
    thresholds: {
      eth: threshold('eth'),
      pol: threshold('pol'),
      usdc: threshold('usdc'),
      btc: threshold('btc'),
      ltc: threshold('ltc'),
      doge: threshold('doge'),
    },
    pollIntervalMs: setting(
      'EVM_SWEEP_POLL_INTERVAL_MS',
      milliseconds(5_000, { min: 100, max: 600_000 }),
      "how often each network's sweeper looks for deposits to sweep, and each sweep at its transactions (100–600000)",
    ),
  },
};
