import type { CryptoCurrency } from '../../../core/currencies';
import type { Network } from '../../../core/networks';

export interface BroadcastRequest {
  /** Our withdrawal id: broadcasting the same withdrawal twice must not send twice. */
  withdrawalId: string;
  currency: CryptoCurrency;
  network: Network;
  destination: string;
  /** Exact decimal string in units of `currency`. */
  amount: string;
  memo: string | null;
}

export interface BroadcastResult {
  transactionHash: string;
  /** When the transaction was first broadcast (ISO 8601); repeated calls return the first time. */
  broadcastAt: string;
}

export type ConfirmationState = 'PENDING' | 'CONFIRMED' | 'FAILED';

/** One blockchain network as the withdrawal workflow sees it; real adapters plug in by configuration. */
export interface ChainAdapter {
  /**
   * Idempotent on withdrawalId. Throws `broadcast-rejected` (which releases the funds) only when the node knows no transaction
   * of this withdrawal: a refused resend of one it took is a send.
   */
  broadcast(request: BroadcastRequest): Promise<BroadcastResult>;
  confirmationState(request: { network: Network; transactionHash: string; broadcastAt: string }): Promise<ConfirmationState>;
  /** The hash on chain when a replacement (same nonce, higher fees) landed instead; null while none is. Optional without replacements. */
  landedTransactionHash?(request: { network: Network; transactionHash: string }): Promise<string | null>;
  /**
   * What a confirmed transaction of ours paid the network, in the network's coin (exact decimal text): the miner's fee, or
   * the gas used at its price; null when nothing was paid (a simulated network).
   */
  networkFee?(request: { network: Network; transactionHash: string }): Promise<string | null>;
}
