import type { EvmDepositNetwork } from './evm-deposit-watcher.contract';
import type { WorkflowContract } from './operation.contract';

/**
 * Sweeping credited deposits from partners' deposit addresses to the network's hot wallet.
 *
 * - The sweeper of one EVM network (`evm-sweeper-<network>`, long-running, started by the worker
 *   on boot like the deposit watcher): every poll interval one activity asks Postgres which
 *   addresses hold credited, unswept deposits above their currency's threshold, and starts a
 *   sweep workflow for each (its id fixed by network, address and currency; one that runs is
 *   joined, not doubled). A loop over Postgres rather than a signal from the crediting step: a
 *   worker that dies right after crediting cannot lose a sweep, and the watcher's history and
 *   its recorded replays stay as they are.
 * - The sweep of one (network, address, currency): claims the deposits (one sweep in flight per
 *   address), then advances step by step (sign and store, top up the gas of a token sweep, send,
 *   confirm) until SWEPT or FAILED. Each step is re-derived from Postgres and the chain, so an
 *   activity run twice, or a worker killed between steps, sends what is stored and signs nothing twice.
 */
export type EvmSweepCurrency = 'eth' | 'pol' | 'usdc';

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
  /** The wait before the next round (EVM_SWEEP_POLL_INTERVAL_MS). */
  pollIntervalMs: number;
}

export interface EvmSweepInput {
  network: EvmDepositNetwork;
  /** The deposit address as the deposits store it. */
  address: string;
  currency: EvmSweepCurrency;
  /** The wait between two looks at the sweep's transactions. */
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
  /** After a round that failed for good (a refusal, not an outage: those are retried), before the next. */
  afterFailureMs: 60_000,
} as const;

export const evmSweeperContract: WorkflowContract<EvmSweeperWorkflow> = {
  workflowType: 'evmSweeperWorkflow',
  // One per network and namespace.
  workflowId: (network) => `evm-sweeper-${network}`,
};

export const evmSweepContract: WorkflowContract<EvmSweepWorkflow> = {
  workflowType: 'evmSweepWorkflow',
  // The key is evmSweepKey(...): one sweep workflow per network, address and currency at a time.
  workflowId: (key) => `evm-sweep-${key}`,
};

/** network-address-currency, the address in lower case: what names a sweep's workflow. */
export function evmSweepKey(input: Pick<EvmSweepInput, 'network' | 'address' | 'currency'>): string {
  return `${input.network}-${input.address.toLowerCase()}-${input.currency}`;
}
