import type { Network } from '../../../core/currencies';
import type { BroadcastRequest, BroadcastResult, ChainAdapter, ConfirmationState } from './chain-adapter';

/** A real adapter that sends on some networks only. */
export interface NetworkAdapter extends ChainAdapter {
  serves(network: Network): boolean;
}

/**
 * Sends each withdrawal through the first adapter that serves its network, else through the
 * fallback (the simulation): the networks with an RPC URL are real, the others simulated. The
 * choice depends on configuration only, so every call for one withdrawal goes to the same adapter
 * as long as the configuration does not change under it.
 */
export class ChainRouter implements ChainAdapter {
  constructor(
    private readonly adapters: readonly NetworkAdapter[],
    private readonly fallback: ChainAdapter,
  ) {}

  private adapterFor(network: Network): ChainAdapter {
    return this.adapters.find((adapter) => adapter.serves(network)) ?? this.fallback;
  }

  broadcast(request: BroadcastRequest): Promise<BroadcastResult> {
    return this.adapterFor(request.network).broadcast(request);
  }

  confirmationState(request: { network: Network; transactionHash: string; broadcastAt: string }): Promise<ConfirmationState> {
    return this.adapterFor(request.network).confirmationState(request);
  }

  async landedTransactionHash(request: { network: Network; transactionHash: string }): Promise<string | null> {
    const adapter = this.adapterFor(request.network);
    return adapter.landedTransactionHash ? adapter.landedTransactionHash(request) : null;
  }
}
