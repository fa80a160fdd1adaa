/** Confirmations the workers wait for on ethereum and bitcoin, withdrawals and deposits: deeper than the deepest reorganisation the nemesis makes (3). */
export const CHAOS_CONFIRMATIONS = 4;

/** The reject IBAN of the simulated bank: transfers to it end UNSUCCESSFUL, their money released. */
export const REJECTED_IBAN = 'FR7630006000011234567890189';

/** Withdrawals above this (EUR) to a non-custodial wallet wait for travel-rule data, which operators complete or not. */
export const TRAVEL_RULE_THRESHOLD_EUR = '150';

/** How long a withdrawal waits for travel-rule data before it fails, its funds released. */
export const TRAVEL_RULE_DEADLINE_MS = 60_000;

/** Settings of every API and worker over the fault campaign's (test/faults/support/harness.ts). */
export const CHAOS_SETTINGS: Readonly<Record<string, string>> = {
  TRAVEL_RULE_THRESHOLD_EUR,
  TRAVEL_RULE_DEADLINE_MS: String(TRAVEL_RULE_DEADLINE_MS),
  SIMULATED_BANK_REJECT_IBANS: REJECTED_IBAN,
  BANK_SETTLEMENT_DELAY_MS: '1000',
};
