import type { CryptoCurrency, Network } from '../../../core/currencies';

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

/**
 * One blockchain network as the withdrawal workflow sees it. Real adapters (EVM JSON-RPC first)
 * implement this same interface and plug in by configuration.
 */
export interface ChainAdapter {
  /**
   * Idempotent on withdrawalId: a repeated call returns the first call's hash and time. It throws
   * `broadcast-rejected` (which releases the funds) only when the node knows no transaction of
   * this withdrawal: a refused resend of one it took is a send.
   */
  broadcast(request: BroadcastRequest): Promise<BroadcastResult>;
  confirmationState(request: { network: Network; transactionHash: string; broadcastAt: string }): Promise<ConfirmationState>;
  /**
   * The hash of the transaction that is on chain for this broadcast, when it differs from the
   * broadcast's own: a replacement at the same nonce with higher fees (EVM). Null while none is.
   * Adapters whose transactions are never replaced need not implement it.
   */
  landedTransactionHash?(request: { network: Network; transactionHash: string }): Promise<string | null>;
}
