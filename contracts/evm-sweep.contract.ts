import type { EvmCurrency } from '../core/networks';
import type { EvmDepositNetwork } from './evm-deposit-watcher.contract';
import type { WorkflowContract } from './operation.contract';

/**
 * Sweeping credited deposits to the network's hot wallet.
 * - The sweeper of one EVM network (long-running, started on boot) polls Postgres for addresses
 *   above their threshold and starts (or joins) a sweep for each. Polling rather than a signal from
 *   crediting: a worker that dies right after crediting cannot lose a sweep.
 * - A sweep of one (network, address, currency) claims the deposits, then signs and stores, tops up
 *   gas, sends and confirms. Each step is re-derived from Postgres and the chain, so a retried
 *   activity or a killed worker sends what is stored and signs nothing twice.
 */
export type EvmSweepCurrency = EvmCurrency;

export interface EvmSweeperInput {
  network: EvmDepositNetwork;
  /** Rounds before the workflow continues as new. Default EVM_SWEEP.roundsPerRun. */
  roundsPerRun?: number;
}

export type EvmSweeperWorkflow = (input: EvmSweeperInput) => Promise<void>;

export interface EvmSweepRoundInput {
  network: EvmDepositNetwork;
}

export interface EvmSweepRoundResult {
  network: EvmDepositNetwork;
  /** Sweeps due this round (started, or joined when they run already). */
  due: number;
  pollIntervalMs: number;
}

export interface EvmSweepInput {
  network: EvmDepositNetwork;
  address: string;
  currency: EvmSweepCurrency;
  pollIntervalMs: number;
}

export type EvmSweepClaim =
  { kind: 'claimed'; sweepId: string; resumed: boolean } | { kind: 'busy'; inFlight: string } | { kind: 'nothing'; reason: string };

/** Where a sweep stands after one step. */
export interface EvmSweepProgress {
  sweepId: string;
  status: 'IN_FLIGHT' | 'SWEPT' | 'FAILED';
  /** SIGNED, GAS_TOP_UP (waiting for it), SENT (waiting for its confirmations), WAITING_FOR_FEES, or the final status. */
  stage: string;
  failureReason?: string;
  transactionHash?: string;
}

export type EvmSweepResult = { outcome: 'SWEPT' | 'FAILED'; progress: EvmSweepProgress } | { outcome: 'NOTHING' | 'BUSY'; reason: string };

export type EvmSweepWorkflow = (input: EvmSweepInput) => Promise<EvmSweepResult>;

export const EVM_SWEEP = {
  /** Rounds of the sweeper before it continues as new (two events each: about 1,000 events). */
  roundsPerRun: 500,
  /** Sweeps started per round at most: a backlog is worked off over a few rounds. */
  duePerRound: 100,
  /** Looks at a sweep's transactions before its workflow continues as new. */
  pollsPerRun: 400,
  /** After a round that failed for good (outages are retried instead), before the next. */
  afterFailureMs: 60_000,
} as const;

export const evmSweeperContract: WorkflowContract<EvmSweeperWorkflow> = {
  workflowType: 'evmSweeperWorkflow',
  workflowId: (network) => `evm-sweeper-${network}`,
};

export const evmSweepContract: WorkflowContract<EvmSweepWorkflow> = {
  workflowType: 'evmSweepWorkflow',
  // The key is evmSweepKey(...).
  workflowId: (key) => `evm-sweep-${key}`,
};

/** network-address-currency, the address in lower case: what names a sweep's workflow. */
export function evmSweepKey(input: Pick<EvmSweepInput, 'network' | 'address' | 'currency'>): string {
  return `${input.network}-${input.address.toLowerCase()}-${input.currency}`;
}
