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
  /** Idempotent on withdrawalId: a repeated call returns the first call's hash and time. */
  broadcast(request: BroadcastRequest): Promise<BroadcastResult>;
  confirmationState(request: { network: Network; transactionHash: string; broadcastAt: string }): Promise<ConfirmationState>;
}
