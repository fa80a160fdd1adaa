import { setting } from '../setting';
import { milliseconds, optionalDecimal } from '../values';

/**
 * EVM_SWEEP_THRESHOLD_<CURRENCY> when unset: a deployment's (gas on a main network costs a few
 * dollars a sweep), and `npm start`'s (a developer's test deposit is swept).
 */
export const SWEEP_THRESHOLD_DEFAULTS = {
  deployment: { eth: '0.05', pol: '50', usdc: '50' },
  development: { eth: '0.001', pol: '1', usdc: '1' },
} as const;

const threshold = (currency: 'eth' | 'pol' | 'usdc') =>
  setting(
    `EVM_SWEEP_THRESHOLD_${currency.toUpperCase()}`,
    optionalDecimal(SWEEP_THRESHOLD_DEFAULTS.deployment[currency]),
    `a deposit address is swept to the hot wallet once its credited, unswept ${currency} adds up to more than this (a plain decimal)`,
    {
      shownDefault: `\`${SWEEP_THRESHOLD_DEFAULTS.deployment[currency]}\` (\`npm start\`: \`${SWEEP_THRESHOLD_DEFAULTS.development[currency]}\`)`,
    },
  );

/** Sweeping credited deposits from partners' addresses to the hot wallet (activities/evm-sweep.activities.ts). */
export const SWEEP_SETTINGS = {
  sweeps: {
    thresholds: { eth: threshold('eth'), pol: threshold('pol'), usdc: threshold('usdc') },
    pollIntervalMs: setting(
      'EVM_SWEEP_POLL_INTERVAL_MS',
      milliseconds(5_000, { min: 100, max: 600_000 }),
      "how often each EVM network's sweeper looks for deposit addresses to sweep, and each sweep at its transactions (100–600000)",
    ),
  },
};
