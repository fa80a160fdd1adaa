import type pg from 'pg';
import type { Clock } from '../../../../core/clock';
import { systemClock } from '../../../../core/clock';
import type { Network } from '../../../../core/currencies';
import type { Logger } from '../../../../core/logger';
import { evmTransactionByHash, evmTransactionOfWithdrawal } from '../../../../db/queries/evm-transaction.queries';
import type { EvmTransactionRecord } from '../../../../db/queries/evm-transaction.queries';
import type { BroadcastRequest, BroadcastResult, ChainAdapter, ConfirmationState } from '../chain-adapter';
import { isEvmNetwork } from './evm-amounts';
import type { EvmNetwork } from './evm-amounts';
import { EvmChainIdentityGuard } from './evm-chain-identity';
import { confirmationStateOf, landedAttempt } from './evm-confirmation';
import type { EvmNetworkConfig } from './evm-network-config';
import { EvmNetworks } from './evm-networks';
import type { EvmAdapterDependencies, EvmNetworkRuntime } from './evm-network-runtime';
import { redactingRpcUrls } from './evm-rpc-redaction';
import { sendLatest } from './evm-sending';
import { checkSameWithdrawal, signFirst } from './evm-signing';

export interface EvmChainAdapterOptions {
  /** Where nonces and signed transactions live. */
  pool: pg.Pool;
  /** The networks this adapter sends on; a request for another network is refused. */
  networks: Partial<Record<EvmNetwork, EvmNetworkConfig>>;
  clock?: Clock;
  log?: Logger;
  /** Checks each network's node is on its recorded chain (the worker shares one with the deposit watcher); a new one when not given. */
  identityGuard?: EvmChainIdentityGuard;
  /**
   * TEST SEAM ONLY: awaited right after the signed transaction is committed and before it is
   * sent, and right after it is sent and before broadcast returns. Tests kill the process there
   * to show that a restart sends the same transaction, once. Never set in production.
   */
  testSeams?: {
    afterSigning?(withdrawalId: string): Promise<void>;
    afterSending?(withdrawalId: string): Promise<void>;
  };
}

/**
 * Withdrawals on EVM networks (ethereum, polygon): eth and pol as value transfers, usdc as an
 * ERC-20 `transfer`, signed with the hot wallet's key and sent through the network's JSON-RPC node.
 *
 * Exactly once on chain:
 * - broadcast() takes the wallet's next nonce under a row lock, signs, and stores the raw bytes and
 *   hash, all in one Postgres transaction, and only then sends. A retry (after a crash anywhere,
 *   a lost answer, a send that failed) finds the stored row and sends the same bytes again: the
 *   node answers "already known" or has mined them, and no second transaction is ever signed for
 *   a withdrawal. A nonce once signed is never given up, so the wallet's nonces stay gap-free.
 * - A replacement (same nonce, higher fees) is stored before it is sent. All attempts of a
 *   withdrawal share its nonce, so at most one of them can ever land; the withdrawal follows
 *   whichever does.
 * - confirmationState() reads receipts: confirmed or failed (reverted) only at the configured
 *   depth. A transaction that vanished in a reorganisation has no receipt again, so its withdrawal
 *   is pending again and its bytes are sent again.
 * - Every call first checks that the node is on the network's recorded chain (chain id and genesis
 *   hash: evm-chain-identity.ts). On another chain (a development chain that was reset) nothing is
 *   signed, sent or read as an answer: the call fails, retryably, saying why.
 * Limitation: the hot wallet must be used by this service alone, or its nonces collide.
 *
 * This class keeps the ChainAdapter interface, the per-network set-up and the redaction of RPC
 * URLs; it hands the work to evm-signing.ts (nonces, signing, storing), evm-confirmation.ts
 * (receipts, depth, replacement) and evm-sending.ts (sending stored bytes, asking the node).
 */
export class EvmChainAdapter implements ChainAdapter {
  private readonly dependencies: EvmAdapterDependencies;
  private readonly testSeams: EvmChainAdapterOptions['testSeams'];
  private readonly networks: EvmNetworks;

  constructor(options: EvmChainAdapterOptions) {
    this.dependencies = { pool: options.pool, clock: options.clock ?? systemClock, log: options.log };
    this.testSeams = options.testSeams;
    this.networks = new EvmNetworks(options.networks, options.identityGuard ?? new EvmChainIdentityGuard(this.dependencies));
    if (this.networks.list().length === 0) throw new Error('EvmChainAdapter needs at least one network');
  }

  /** Whether this adapter sends on the network (ChainRouter sends the others elsewhere). */
  serves(network: Network): boolean {
    return isEvmNetwork(network) && this.networks.configured(network) !== undefined;
  }

  broadcast(request: BroadcastRequest): Promise<BroadcastResult> {
    return this.redactingRpcUrls(() => this.broadcastOnce(request));
  }

  confirmationState(request: { network: Network; transactionHash: string; broadcastAt: string }): Promise<ConfirmationState> {
    return this.redactingRpcUrls(() => this.currentConfirmationState(request));
  }

  /** The hash of the attempt that is on chain now (at any depth), or null while none is. */
  landedTransactionHash(request: { network: Network; transactionHash: string }): Promise<string | null> {
    return this.redactingRpcUrls(async () => {
      const runtime = await this.runtime(request.network, `read transaction ${request.transactionHash}`);
      const landed = await landedAttempt(runtime, await this.recordByHash(runtime, request.transactionHash));
      return landed?.attempt.transactionHash ?? null;
    });
  }

  /** viem puts the node's URL (often with an API key) into its error messages: errors leave this adapter without it. */
  private redactingRpcUrls<T>(work: () => Promise<T>): Promise<T> {
    return redactingRpcUrls(this.networks.rpcUrls, work);
  }

  private async broadcastOnce(request: BroadcastRequest): Promise<BroadcastResult> {
    const runtime = await this.runtime(request.network, `broadcast withdrawal ${request.withdrawalId}`);
    const stored = await evmTransactionOfWithdrawal(this.dependencies.pool, request.withdrawalId);
    const record = stored ? checkSameWithdrawal(runtime, stored, request) : await signFirst(this.dependencies, runtime, request);
    await this.testSeams?.afterSigning?.(request.withdrawalId);
    await sendLatest(runtime, record);
    await this.testSeams?.afterSending?.(request.withdrawalId);
    const first = record.attempts[0]!;
    return { transactionHash: first.transactionHash, broadcastAt: record.createdAt.toISOString() };
  }

  private async currentConfirmationState(request: { network: Network; transactionHash: string }): Promise<ConfirmationState> {
    const runtime = await this.runtime(request.network, `settle on transaction ${request.transactionHash}`);
    return confirmationStateOf(this.dependencies, runtime, await this.recordByHash(runtime, request.transactionHash));
  }

  /** The network's runtime once its node is checked (evm-networks.ts; `action` names what is refused). */
  private async runtime(network: Network, action: string): Promise<EvmNetworkRuntime> {
    const runtime = isEvmNetwork(network) ? this.networks.configured(network) : undefined;
    if (!runtime) throw new Error(`the EVM adapter is not configured for ${network}`);
    return this.networks.checked(runtime, action);
  }

  private async recordByHash(runtime: EvmNetworkRuntime, transactionHash: string): Promise<EvmTransactionRecord> {
    const record = await evmTransactionByHash(this.dependencies.pool, transactionHash);
    if (!record) throw new Error(`transaction ${transactionHash} was not broadcast by this service`);
    if (record.network !== runtime.network)
      throw new Error(`transaction ${transactionHash} is on ${record.network}, not ${runtime.network}`);
    return record;
  }
}
