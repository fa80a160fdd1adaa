import type pg from 'pg';
import type { Network } from '../../../core/networks';
import { transactionSignedOnChain, withdrawalSignedOnChain } from '../../../db/queries/signed-transaction.queries';
import type { BroadcastRequest, BroadcastResult, ChainAdapter, ConfirmationState } from './chain-adapter';

/** How many hashes found unsigned ChainRouter remembers (a few MB at most). */
const UNSIGNED_MEMO_LIMIT = 10_000;

/** A real adapter that sends on some networks only. */
export interface NetworkAdapter extends ChainAdapter {
  serves(network: Network): boolean;
}

/**
 * Sends each withdrawal through the first adapter that serves its network, else the simulation. A withdrawal a real adapter
 * signed is never simulated (that would settle it without the chain): a worker lacking the network's configuration fails
 * retryably instead, until a configured one takes the task.
 */
export class ChainRouter implements ChainAdapter {
  /**
   * Hashes found not signed by a real adapter, not checked again on every poll: the answer cannot change, since the adapter
   * stores every attempt before any workflow holds its hash. At most UNSIGNED_MEMO_LIMIT, the oldest forgotten first.
   */
  private readonly unsigned = new Set<string>();

  constructor(
    private readonly adapters: readonly NetworkAdapter[],
    private readonly fallback: ChainAdapter,
    /** Where the real adapters keep what they signed; without it, no such check (no such tables). */
    private readonly signedStore?: pg.Pool,
  ) {}

  private real(network: Network): ChainAdapter | undefined {
    return this.adapters.find((adapter) => adapter.serves(network));
  }

  async broadcast(request: BroadcastRequest): Promise<BroadcastResult> {
    const real = this.real(request.network);
    if (real) return real.broadcast(request);
    if (this.signedStore && (await withdrawalSignedOnChain(this.signedStore, request.withdrawalId))) {
      throw new Error(
        `withdrawal ${request.withdrawalId} was signed for ${request.network}, which this worker does not send on: it must not be simulated`,
      );
    }
    return this.fallback.broadcast(request);
  }

  async confirmationState(request: { network: Network; transactionHash: string; broadcastAt: string }): Promise<ConfirmationState> {
    const real = this.real(request.network);
    if (real) return real.confirmationState(request);
    await this.refuseSigned(request);
    return this.fallback.confirmationState(request);
  }

  async landedTransactionHash(request: { network: Network; transactionHash: string }): Promise<string | null> {
    const real = this.real(request.network);
    if (real) return real.landedTransactionHash ? real.landedTransactionHash(request) : null;
    await this.refuseSigned(request);
    return null;
  }

  /** Null when the network is simulated here: nothing was paid. */
  async networkFee(request: { network: Network; transactionHash: string }): Promise<string | null> {
    const real = this.real(request.network);
    if (real?.networkFee) return real.networkFee(request);
    if (real) throw new Error(`the adapter of ${request.network} cannot say what its transactions paid the network`);
    await this.refuseSigned(request);
    return null;
  }

  private async refuseSigned(request: { network: Network; transactionHash: string }): Promise<void> {
    if (!this.signedStore) return;
    const key = request.transactionHash.toLowerCase();
    if (this.unsigned.has(key)) return;
    if (await transactionSignedOnChain(this.signedStore, request.transactionHash)) {
      throw new Error(
        `transaction ${request.transactionHash} is on ${request.network}, which this worker does not send on: it must not be simulated`,
      );
    }
    if (this.unsigned.size >= UNSIGNED_MEMO_LIMIT) this.unsigned.delete(this.unsigned.values().next().value as string);
    this.unsigned.add(key);
  }
}
