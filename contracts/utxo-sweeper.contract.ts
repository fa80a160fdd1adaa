import type { UtxoNetwork } from '../core/networks';
import type { WorkflowContract } from './operation.contract';

/**
 * Sweeping a UTXO network's credited deposits to its hot wallet: one long-running sweeper per network, started on boot, whose
 * every round (one activity) follows the network's sweep in flight (one transaction spending many deposits' outputs) or signs
 * the next. Its own workflow type: an EVM sweeper's history never holds a UTXO round.
 */
export interface UtxoSweeperInput {
  network: UtxoNetwork;
  /** Rounds before the workflow continues as new. Default UTXO_SWEEP.roundsPerRun. */
  roundsPerRun?: number;
}

export type UtxoSweeperWorkflow = (input: UtxoSweeperInput) => Promise<void>;

export interface UtxoSweepRoundInput {
  network: UtxoNetwork;
}

export interface UtxoSweepRoundResult {
  network: UtxoNetwork;
  /** NOTHING (none in flight, and nothing worth sweeping), SENT (waiting for its confirmations), SWEPT or FAILED. */
  stage: 'NOTHING' | 'SENT' | 'SWEPT' | 'FAILED';
  /** Deposits the sweep in flight (or just finished) spends. */
  deposits: number;
  pollIntervalMs: number;
}

export const UTXO_SWEEP = {
  /** Rounds before the sweeper continues as new (two events each: about 1,000 events). */
  roundsPerRun: 500,
  /** After a round that failed for good (outages are retried instead), before the next. */
  afterFailureMs: 60_000,
} as const;

export const utxoSweeperContract: WorkflowContract<UtxoSweeperWorkflow> = {
  workflowType: 'utxoSweeperWorkflow',
  workflowId: (network) => `utxo-sweeper-${network}`,
};
