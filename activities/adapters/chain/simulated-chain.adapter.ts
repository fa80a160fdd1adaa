import { createHash } from 'node:crypto';
import type { Network } from '../../../core/networks';
import type { BroadcastRequest, BroadcastResult, ChainAdapter, ConfirmationState } from './chain-adapter';

export interface SimulatedChainOptions {
  /** How long after broadcast a transaction counts as confirmed. */
  confirmationDelayMs: number;
  now?: () => Date;
}

// EVM chains write transaction hashes as 0x-prefixed hex; the bitcoin family writes bare hex.
const HEX_PREFIX: Readonly<Record<Network, string>> = {
  ethereum: '0x',
  polygon: '0x',
  bitcoin: '',
  litecoin: '',
  dogecoin: '',
};

/** A function of the request alone, so a re-broadcast (retry, restart) yields the same hash without any stored state. */
export function simulatedTransactionHash(request: BroadcastRequest): string {
  const digest = createHash('sha256')
    .update(`${request.withdrawalId}|${request.network}|${request.destination}|${request.amount}`)
    .digest('hex');
  return HEX_PREFIX[request.network] + digest;
}

/** How many withdrawals' first broadcasts one process remembers (about 200 bytes each). */
export const MAX_REMEMBERED_BROADCASTS = 10_000;

/**
 * A simulated chain for local runs and tests: nothing is sent anywhere. First broadcasts are remembered in memory for the
 * latest MAX_REMEMBERED_BROADCASTS withdrawals only; a forgotten one re-broadcast gets a fresh time, which is harmless: the
 * workflow passes the first `broadcastAt` back to confirmationState, so it could at most delay confirmation, never skip it.
 */
export class SimulatedChainAdapter implements ChainAdapter {
  private readonly confirmationDelayMs: number;
  private readonly now: () => Date;
  private readonly broadcasts = new Map<string, BroadcastResult>();

  constructor(options: SimulatedChainOptions) {
    if (!Number.isFinite(options.confirmationDelayMs) || options.confirmationDelayMs < 0) {
      throw new Error('confirmationDelayMs must be a non-negative number');
    }
    this.confirmationDelayMs = options.confirmationDelayMs;
    this.now = options.now ?? (() => new Date());
  }

  async broadcast(request: BroadcastRequest): Promise<BroadcastResult> {
    const transactionHash = simulatedTransactionHash(request);
    const earlier = this.broadcasts.get(request.withdrawalId);
    if (earlier !== undefined) {
      // Same withdrawal id with other details would be a second, different payment: refuse it.
      if (earlier.transactionHash !== transactionHash) {
        throw new Error(`withdrawal ${request.withdrawalId} was already broadcast with different details`);
      }
      return { ...earlier };
    }
    const result: BroadcastResult = { transactionHash, broadcastAt: this.now().toISOString() };
    this.broadcasts.set(request.withdrawalId, result);
    // A Map iterates in insertion order: the first key is the oldest broadcast.
    if (this.broadcasts.size > MAX_REMEMBERED_BROADCASTS) this.broadcasts.delete(this.broadcasts.keys().next().value as string);
    return { ...result };
  }

  async confirmationState(request: { network: Network; transactionHash: string; broadcastAt: string }): Promise<ConfirmationState> {
    const broadcastAtMs = Date.parse(request.broadcastAt);
    if (Number.isNaN(broadcastAtMs)) throw new Error('broadcastAt is not an ISO 8601 time');
    return this.now().getTime() >= broadcastAtMs + this.confirmationDelayMs ? 'CONFIRMED' : 'PENDING';
  }
}
