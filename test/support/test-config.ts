import { RAILS } from '../../core/rails';

/** Settings the test stack's worker runs with: short timers, one deny-listed address, one rejected IBAN. */
export const TEST_WORKER_SETTINGS = {
  CHAIN_CONFIRMATION_DELAY_MS: '300',
  BANK_SETTLEMENT_DELAY_MS: '300',
  TRAVEL_RULE_DEADLINE_MS: '4000',
  TRAVEL_RULE_THRESHOLD_EUR: '1000',
  DENY_LIST_ADDRESSES: '0x000000000000000000000000000000000000dEaD',
  SIMULATED_BANK_REJECT_IBANS: 'FR7630006000011234567890189',
} as const;

/** SIMULATED_RAILS for a production entry point (main/worker.main.ts) started by a test: no bank or chain node, every rail simulated. */
export const EVERY_RAIL_SIMULATED = RAILS.join(',');
