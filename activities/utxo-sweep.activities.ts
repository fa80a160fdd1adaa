import type { UtxoSweepRoundInput, UtxoSweepRoundResult } from '../contracts';
import { DomainError } from '../core/errors';
import { UTXO_NETWORKS } from '../core/networks';
import type { UtxoDepositSweeper } from './adapters/chain/utxo/utxo-deposit-sweeper';

export interface UtxoSweepDependencies {
  /** Absent: this worker sweeps no UTXO network (it is not the sweeper, none is real here, or it has no deposit seed). */
  utxoSweeps?: { sweeper: Pick<UtxoDepositSweeper, 'networks' | 'round'>; pollIntervalMs: number };
}

export function createUtxoSweepActivities(deps: UtxoSweepDependencies) {
  return {
    /**
     * One round of a UTXO network's sweeper: follows the sweep in flight (sent again when the node lost it, SWEPT with its
     * fee posted at its confirmations), or, with none, signs and sends one when the credited deposits reach the threshold.
     * Safe twice and at once: the bytes are stored before they are sent, one sweep in flight per network.
     */
    async sweepUtxoDeposits(input: UtxoSweepRoundInput): Promise<UtxoSweepRoundResult> {
      const { network } = input;
      if (!(UTXO_NETWORKS as readonly string[]).includes(network))
        throw new DomainError('invalid-request', `${network} is no UTXO network`);
      // Retryable: in a rolling deploy a sweeper that has the network's settings and its seed takes the next attempt.
      if (!deps.utxoSweeps || !deps.utxoSweeps.sweeper.networks().includes(network))
        throw new Error(
          `this worker does not sweep ${network} (it needs UTXO_RPC_URL_${network.toUpperCase()} and its family's deposit seed)`,
        );
      const round = await deps.utxoSweeps.sweeper.round(network);
      return { network, stage: round.stage, deposits: round.deposits, pollIntervalMs: deps.utxoSweeps.pollIntervalMs };
    },
  };
}
