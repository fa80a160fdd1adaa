import type pg from 'pg';
import type { Clock } from '../../../../core/clock';
import { systemClock } from '../../../../core/clock';
import type { Network } from '../../../../core/networks';
import type { Logger } from '../../../../core/logger';
import { evmTransactionByHash, evmTransactionOfWithdrawal } from '../../../../db/queries/evm-transaction.queries';
import type { EvmTransactionRecord } from '../../../../db/queries/evm-transaction.queries';
import type { BroadcastRequest, BroadcastResult, ChainAdapter, ConfirmationState } from '../chain-adapter';
import { NETWORK_DECLARATIONS, isEvmNetwork } from '../../../../core/networks';
import { CURRENCY_SCALE } from '../../../../core/currencies';
import { unitsToDecimal } from '../../../../core/money';
import type { EvmNetwork } from '../../../../core/networks';
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
  /** TEST SEAM ONLY: awaited after the signed transaction is committed, and after it is sent; tests kill the process there. */
  testSeams?: {
    afterSigning?(withdrawalId: string): Promise<void>;
    afterSending?(withdrawalId: string): Promise<void>;
  };
}

/**
 * Withdrawals on EVM networks, signed with the hot wallet's key. Exactly once on chain:
 * - broadcast() takes the wallet's next nonce under a row lock, signs and stores the bytes in one Postgres transaction, and
 *   only then sends; a retry sends the same bytes, never a second transaction. Signed nonces are never given up (no gaps).
 * - A replacement (same nonce, higher fees) is stored before it is sent; sharing the nonce, at most one attempt can land.
 * - confirmationState() answers only at the configured depth; a transaction lost in a reorganisation is pending and sent again.
 * - Every call first checks the node is on the network's recorded chain (evm-chain-identity.ts), else fails retryably.
 * Limitation: the hot wallet must be used by this service alone, or its nonces collide.
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
    return redactingRpcUrls(this.networks.rpcUrls, async () => {
      const runtime = await this.runtime(request.network, `broadcast withdrawal ${request.withdrawalId}`);
      const stored = await evmTransactionOfWithdrawal(this.dependencies.pool, request.withdrawalId);
      const record = stored ? checkSameWithdrawal(runtime, stored, request) : await signFirst(this.dependencies, runtime, request);
      await this.testSeams?.afterSigning?.(request.withdrawalId);
      await sendLatest(runtime, record);
      await this.testSeams?.afterSending?.(request.withdrawalId);
      return { transactionHash: record.attempts[0]!.transactionHash, broadcastAt: record.createdAt.toISOString() };
    });
  }

  confirmationState(request: { network: Network; transactionHash: string; broadcastAt: string }): Promise<ConfirmationState> {
    return redactingRpcUrls(this.networks.rpcUrls, async () => {
      const runtime = await this.runtime(request.network, `settle on transaction ${request.transactionHash}`);
      return confirmationStateOf(this.dependencies, runtime, await this.recordByHash(runtime, request.transactionHash));
    });
  }

  /** The hash of the attempt that is on chain now (at any depth), or null while none is. */
  landedTransactionHash(request: { network: Network; transactionHash: string }): Promise<string | null> {
    return redactingRpcUrls(this.networks.rpcUrls, async () => {
      const runtime = await this.runtime(request.network, `read transaction ${request.transactionHash}`);
      const landed = await landedAttempt(runtime, await this.recordByHash(runtime, request.transactionHash));
      return landed?.attempt.transactionHash ?? null;
    });
  }

  /** The gas the landed attempt used, at the price it paid per unit, in the network's coin. */
  networkFee(request: { network: Network; transactionHash: string }): Promise<string> {
    return redactingRpcUrls(this.networks.rpcUrls, async () => {
      const runtime = await this.runtime(request.network, `read transaction ${request.transactionHash}`);
      const landed = await landedAttempt(runtime, await this.recordByHash(runtime, request.transactionHash));
      if (!landed) throw new Error(`no attempt of transaction ${request.transactionHash} is on chain: its fee is not known yet`);
      const paid = landed.receipt.gasUsed * landed.receipt.effectiveGasPrice;
      return unitsToDecimal(paid, CURRENCY_SCALE[NETWORK_DECLARATIONS[runtime.network].nativeCurrency]);
    });
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
