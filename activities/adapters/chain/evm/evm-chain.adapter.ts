import type pg from 'pg';
import {
  createPublicClient,
  defineChain,
  encodeFunctionData,
  erc20Abi,
  getAddress,
  http,
  isAddress,
  keccak256,
  parseTransaction,
  TransactionNotFoundError,
  TransactionReceiptNotFoundError,
} from 'viem';
import type {
  Address,
  Chain,
  Hex,
  HttpTransport,
  PrivateKeyAccount,
  PublicClient,
  TransactionReceipt,
  TransactionSerializableEIP1559,
} from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import type { Clock } from '../../../../core/clock';
import { systemClock } from '../../../../core/clock';
import type { Network } from '../../../../core/currencies';
import type { Logger } from '../../../../core/logger';
import {
  evmTransactionByHash,
  evmTransactionOfWithdrawal,
  inPgTransaction,
  insertEvmTransaction,
  insertReplacementAttempt,
  lockNextNonce,
  startWalletNonce,
  walletNonceExists,
} from '../../../../db/queries/evm-transaction.queries';
import type { EvmTransactionAttempt, EvmTransactionRecord, NewEvmAttempt } from '../../../../db/queries/evm-transaction.queries';
import type { BroadcastRequest, BroadcastResult, ChainAdapter, ConfirmationState } from '../chain-adapter';
import { EVM_DECIMALS, isEvmNetwork, toBaseUnits, transferKind } from './evm-amounts';
import type { EvmNetwork } from './evm-amounts';
import { initialFees, replacementFees } from './evm-fee-policy';
import type { Eip1559Fees, FeePolicy } from './evm-fee-policy';
import {
  assertEvmNetworkConfig,
  DEFAULT_REPLACEMENT_BUMP_PERCENT,
  DEFAULT_TOKEN_TRANSFER_GAS_LIMIT,
  NATIVE_TRANSFER_GAS_LIMIT,
} from './evm-network-config';
import type { EvmNetworkConfig } from './evm-network-config';

export interface EvmChainAdapterOptions {
  /** Where nonces and signed transactions live (Migration20261122060000_evm_chain). */
  pool: pg.Pool;
  /** The networks this adapter sends on; a request for another network is refused. */
  networks: Partial<Record<EvmNetwork, EvmNetworkConfig>>;
  clock?: Clock;
  log?: Logger;
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

/** One configured network, ready to use. The key lives only inside `account`'s signing closures. */
interface EvmNetworkRuntime {
  network: EvmNetwork;
  chainId: number;
  client: EvmClient;
  account: PrivateKeyAccount;
  /** The hot wallet's address in lower case, as stored. */
  address: string;
  requiredConfirmations: bigint;
  replaceAfterMs: number;
  usdcTokenAddress: Address | undefined;
  tokenTransferGasLimit: bigint;
  feePolicy: FeePolicy;
  /** The node's chain id, checked once before the first use. */
  chainChecked: Promise<void> | undefined;
}

const RPC_TIMEOUT_MS = 10_000;

type EvmClient = PublicClient<HttpTransport, Chain>;

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
 * Limitation: the hot wallet must be used by this service alone, or its nonces collide.
 */
export class EvmChainAdapter implements ChainAdapter {
  private readonly pool: pg.Pool;
  private readonly clock: Clock;
  private readonly log: Logger | undefined;
  private readonly testSeams: EvmChainAdapterOptions['testSeams'];
  private readonly networks = new Map<EvmNetwork, EvmNetworkRuntime>();
  private readonly rpcUrls = new Set<string>();

  constructor(options: EvmChainAdapterOptions) {
    this.pool = options.pool;
    this.clock = options.clock ?? systemClock;
    this.log = options.log;
    this.testSeams = options.testSeams;
    for (const [network, config] of Object.entries(options.networks) as Array<[EvmNetwork, EvmNetworkConfig | undefined]>) {
      if (!config) continue;
      this.networks.set(network, runtimeOf(network, config));
      for (const form of urlForms(config.rpcUrl)) this.rpcUrls.add(form);
    }
    if (this.networks.size === 0) throw new Error('EvmChainAdapter needs at least one network');
  }

  /** Whether this adapter sends on the network (ChainRouter sends the others elsewhere). */
  serves(network: Network): boolean {
    return isEvmNetwork(network) && this.networks.has(network);
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
      const runtime = await this.runtime(request.network);
      const landed = await this.landedAttempt(runtime, await this.recordByHash(runtime, request.transactionHash));
      return landed?.attempt.transactionHash ?? null;
    });
  }

  /**
   * viem puts the node's URL into its error messages, and an RPC URL often carries an API key
   * (settings treat it as a secret): errors leave this adapter with the URL replaced.
   */
  private async redactingRpcUrls<T>(work: () => Promise<T>): Promise<T> {
    try {
      return await work();
    } catch (error) {
      if (!(error instanceof Error)) throw error;
      // Longest first: a URL's credential-free form is part of the full one.
      const urls = [...this.rpcUrls].sort((a, b) => b.length - a.length).filter((url) => error.message.includes(url));
      if (urls.length === 0) throw error;
      const message = urls.reduce((text, url) => text.split(url).join('<EVM RPC URL>'), error.message);
      throw new Error(message);
    }
  }

  private async broadcastOnce(request: BroadcastRequest): Promise<BroadcastResult> {
    const runtime = await this.runtime(request.network);
    const stored = await evmTransactionOfWithdrawal(this.pool, request.withdrawalId);
    const record = stored ? this.checkSameWithdrawal(runtime, stored, request) : await this.signFirst(runtime, request);
    await this.testSeams?.afterSigning?.(request.withdrawalId);
    await this.sendLatest(runtime, record);
    await this.testSeams?.afterSending?.(request.withdrawalId);
    const first = record.attempts[0]!;
    return { transactionHash: first.transactionHash, broadcastAt: record.createdAt.toISOString() };
  }

  private async currentConfirmationState(request: { network: Network; transactionHash: string }): Promise<ConfirmationState> {
    const runtime = await this.runtime(request.network);
    const record = await this.recordByHash(runtime, request.transactionHash);
    const landed = await this.landedAttempt(runtime, record);
    if (landed) {
      const head = await runtime.client.getBlockNumber({ cacheTime: 0 });
      const depth = head - landed.receipt.blockNumber + 1n;
      if (depth < runtime.requiredConfirmations) return 'PENDING';
      // The receipt and the head may come from two backends behind one URL: the receipt's block
      // must be the chain's block at that height now, or the answer waits.
      const block = await runtime.client.getBlock({ blockNumber: landed.receipt.blockNumber });
      if (block.hash !== landed.receipt.blockHash) return 'PENDING';
      if (landed.receipt.status === 'success') return 'CONFIRMED';
      // FAILED releases the funds: only an explicit revert says so. viem maps anything but 0x0
      // and 0x1 (a proxy's "0x01", a missing field) to another value; that is asked again.
      if (landed.receipt.status === 'reverted') return 'FAILED';
      throw new Error(`transaction ${landed.attempt.transactionHash} has a receipt without a readable status`);
    }
    await this.keepPending(runtime, record);
    return 'PENDING';
  }

  private async runtime(network: Network): Promise<EvmNetworkRuntime> {
    const runtime = isEvmNetwork(network) ? this.networks.get(network) : undefined;
    if (!runtime) throw new Error(`the EVM adapter is not configured for ${network}`);
    runtime.chainChecked ??= checkChainId(runtime).catch((error: unknown) => {
      runtime.chainChecked = undefined; // an unreachable node is asked again next time
      throw error;
    });
    await runtime.chainChecked;
    return runtime;
  }

  private async recordByHash(runtime: EvmNetworkRuntime, transactionHash: string): Promise<EvmTransactionRecord> {
    const record = await evmTransactionByHash(this.pool, transactionHash);
    if (!record) throw new Error(`transaction ${transactionHash} was not broadcast by this service`);
    if (record.network !== runtime.network)
      throw new Error(`transaction ${transactionHash} is on ${record.network}, not ${runtime.network}`);
    return record;
  }

  /** A stored withdrawal is resent only if the request asks for exactly what was signed. */
  private checkSameWithdrawal(runtime: EvmNetworkRuntime, stored: EvmTransactionRecord, request: BroadcastRequest): EvmTransactionRecord {
    const payment = paymentOf(runtime, request);
    const same =
      stored.network === runtime.network &&
      stored.currency === payment.currency &&
      stored.destination === payment.destination &&
      stored.amountBaseUnits === payment.amountBaseUnits;
    // Same withdrawal id with other details would be a second, different payment: refuse it.
    if (!same) throw new Error(`withdrawal ${request.withdrawalId} was already broadcast with different details`);
    return stored;
  }

  /**
   * Signs the withdrawal's transaction under the wallet's next nonce and stores it, in one
   * Postgres transaction; the node is asked for fees before (no network call holds the lock).
   */
  private async signFirst(runtime: EvmNetworkRuntime, request: BroadcastRequest): Promise<EvmTransactionRecord> {
    const payment = paymentOf(runtime, request);
    const fees = initialFees(await runtime.client.estimateFeesPerGas({ type: 'eip1559' }), runtime.feePolicy);
    // A transaction the wallet cannot pay for would hold its nonce and every later one: wait
    // (retried) before a nonce is taken, until the hot wallet is topped up.
    await this.assertWalletCanPay(runtime, payment, fees);
    await this.ensureNonceSequence(runtime);
    const now = this.clock.now();
    const signed = await inPgTransaction(this.pool, async (client) => {
      const nonce = await lockNextNonce(client, runtime.network, runtime.address);
      // Another process may have signed this withdrawal while we waited for the lock.
      if (await evmTransactionOfWithdrawal(client, request.withdrawalId)) return undefined;
      const transaction: TransactionSerializableEIP1559 = {
        type: 'eip1559',
        chainId: runtime.chainId,
        nonce: Number(nonce),
        ...payment.call,
        ...fees,
      };
      const attempt = await signAttempt(runtime, transaction, 1, now);
      await insertEvmTransaction(
        client,
        {
          withdrawalId: request.withdrawalId,
          network: runtime.network,
          chainId: runtime.chainId,
          fromAddress: runtime.address,
          nonce,
          currency: payment.currency,
          destination: payment.destination,
          amountBaseUnits: payment.amountBaseUnits,
          createdAt: now,
        },
        attempt,
      );
      return attempt;
    });
    const record = await evmTransactionOfWithdrawal(this.pool, request.withdrawalId);
    if (!record) throw new Error(`withdrawal ${request.withdrawalId} has no stored transaction after signing`);
    if (!signed) return this.checkSameWithdrawal(runtime, record, request);
    this.log?.info('signed an EVM withdrawal transaction', {
      withdrawalId: request.withdrawalId,
      network: runtime.network,
      nonce: record.nonce.toString(),
      transactionHash: signed.transactionHash,
    });
    return record;
  }

  private async assertWalletCanPay(runtime: EvmNetworkRuntime, payment: ReturnType<typeof paymentOf>, fees: Eip1559Fees): Promise<void> {
    const gasCost = payment.call.gas * fees.maxFeePerGas;
    const native = await runtime.client.getBalance({ address: runtime.account.address, blockTag: 'pending' });
    if (native < payment.call.value + gasCost) {
      throw new Error(
        `the ${runtime.network} hot wallet holds ${native} wei, short of ${payment.call.value + gasCost} wei for this withdrawal and its gas`,
      );
    }
    if (payment.call.value === 0n && runtime.usdcTokenAddress) {
      const tokens = await runtime.client.readContract({
        address: runtime.usdcTokenAddress,
        abi: erc20Abi,
        functionName: 'balanceOf',
        args: [runtime.account.address],
      });
      if (tokens < payment.amountBaseUnits) {
        throw new Error(`the ${runtime.network} hot wallet holds ${tokens} USDC base units, short of ${payment.amountBaseUnits}`);
      }
    }
  }

  /**
   * A wallet's sequence starts, on its first use, at the chain's count of its transactions
   * (pending included); from then on Postgres alone hands out its nonces.
   */
  private async ensureNonceSequence(runtime: EvmNetworkRuntime): Promise<void> {
    if (await walletNonceExists(this.pool, runtime.network, runtime.address)) return;
    const count = await runtime.client.getTransactionCount({ address: runtime.account.address, blockTag: 'pending' });
    await startWalletNonce(this.pool, runtime.network, runtime.address, BigInt(count));
  }

  /**
   * Sends the latest attempt's stored bytes. A failed send counts as sent when the node knows one
   * of the withdrawal's attempts anyway ("already known", or mined: "nonce too low"); otherwise
   * it throws and the row stays for the retry to send again.
   */
  private async sendLatest(runtime: EvmNetworkRuntime, record: EvmTransactionRecord): Promise<void> {
    const latest = latestAttempt(record);
    try {
      await runtime.client.sendRawTransaction({ serializedTransaction: latest.rawTransaction as Hex });
    } catch (error) {
      if (await this.nodeKnowsAny(runtime, record)) return;
      throw new Error(`sending transaction ${latest.transactionHash} of withdrawal ${record.withdrawalId} failed: ${shortMessage(error)}`);
    }
  }

  private async nodeKnowsAny(runtime: EvmNetworkRuntime, record: EvmTransactionRecord): Promise<boolean> {
    const known = await Promise.all(record.attempts.map((attempt) => transactionOrNull(runtime.client, attempt.transactionHash)));
    return known.some((transaction) => transaction !== null);
  }

  /** The attempt that is on chain, with its receipt; all attempts share one nonce, so at most one is. */
  private async landedAttempt(
    runtime: EvmNetworkRuntime,
    record: EvmTransactionRecord,
  ): Promise<{ attempt: EvmTransactionAttempt; receipt: TransactionReceipt } | undefined> {
    const receipts = await Promise.all(record.attempts.map((attempt) => receiptOrNull(runtime.client, attempt.transactionHash)));
    const landed = record.attempts.flatMap((attempt, index) => (receipts[index] ? [{ attempt, receipt: receipts[index] }] : []));
    if (landed.length > 1) throw new Error(`two attempts of withdrawal ${record.withdrawalId} share nonce ${record.nonce} on chain`);
    return landed[0];
  }

  /**
   * Nothing landed yet: replace the latest attempt if it waited too long, else make sure the node
   * still has it (a node drops transactions from its pool, and a reorganisation drops mined ones).
   */
  private async keepPending(runtime: EvmNetworkRuntime, record: EvmTransactionRecord): Promise<void> {
    const latest = latestAttempt(record);
    const waitedMs = this.clock.now().getTime() - latest.signedAt.getTime();
    // Only the wallet that signed the nonce can replace it (the key may have been rotated since).
    const replaceable = record.fromAddress === runtime.address && record.chainId === runtime.chainId;
    // Only the wallet's next nonce to be mined: a later one waits behind it, and raising its fee
    // would only push every queued transaction towards the fee cap.
    if (
      replaceable &&
      waitedMs >= runtime.replaceAfterMs &&
      (await this.isNextToMine(runtime, record)) &&
      (await this.replace(runtime, record, latest))
    )
      return;
    if ((await transactionOrNull(runtime.client, latest.transactionHash)) !== null) return;
    this.log?.warn('the node does not know a pending EVM transaction: sending it again', {
      withdrawalId: record.withdrawalId,
      transactionHash: latest.transactionHash,
    });
    await this.sendLatest(runtime, record);
  }

  private async isNextToMine(runtime: EvmNetworkRuntime, record: EvmTransactionRecord): Promise<boolean> {
    const mined = await runtime.client.getTransactionCount({ address: runtime.account.address, blockTag: 'latest' });
    return BigInt(mined) === record.nonce;
  }

  /**
   * Signs the same transaction (same nonce, destination, value and data) with higher fees,
   * stores it as the next attempt, then sends it. False when the fee cap leaves no room.
   */
  private async replace(runtime: EvmNetworkRuntime, record: EvmTransactionRecord, latest: EvmTransactionAttempt): Promise<boolean> {
    const fees = replacementFees(latest, await runtime.client.estimateFeesPerGas({ type: 'eip1559' }), runtime.feePolicy);
    if (!fees) {
      this.log?.warn('an EVM transaction waits at the fee cap: not replacing it', {
        withdrawalId: record.withdrawalId,
        transactionHash: latest.transactionHash,
      });
      return false;
    }
    const original = parseTransaction(latest.rawTransaction as Hex);
    if (original.type !== 'eip1559' || original.nonce !== Number(record.nonce)) {
      throw new Error(`stored transaction ${latest.transactionHash} is not the EIP-1559 transaction at nonce ${record.nonce}`);
    }
    const transaction: TransactionSerializableEIP1559 = {
      type: 'eip1559',
      chainId: runtime.chainId,
      nonce: original.nonce,
      to: original.to ?? null,
      value: original.value ?? 0n,
      ...(original.data ? { data: original.data } : {}),
      gas: original.gas ?? latest.gasLimit,
      ...fees,
    };
    const replacement = await signAttempt(runtime, transaction, latest.attempt + 1, this.clock.now());
    const stored = await insertReplacementAttempt(this.pool, record.withdrawalId, latest.attempt, replacement);
    // Another process replaced it first: send what is stored now, whoever signed it.
    const current = stored
      ? { ...record, attempts: [...record.attempts, { ...replacement, replacedAt: null }] }
      : await this.reload(record);
    this.log?.info('replacing a pending EVM transaction at the same nonce with higher fees', {
      withdrawalId: record.withdrawalId,
      replaced: latest.transactionHash,
      replacement: latestAttempt(current).transactionHash,
      maxFeePerGas: fees.maxFeePerGas.toString(),
    });
    await this.sendLatest(runtime, current);
    return true;
  }

  private async reload(record: EvmTransactionRecord): Promise<EvmTransactionRecord> {
    const reloaded = await evmTransactionOfWithdrawal(this.pool, record.withdrawalId);
    if (!reloaded) throw new Error(`withdrawal ${record.withdrawalId} lost its stored transaction`);
    return reloaded;
  }
}

/** The URL as configured and as viem writes it in messages (credentials stripped). */
function urlForms(rpcUrl: string): string[] {
  const forms = [rpcUrl];
  try {
    const url = new URL(rpcUrl);
    forms.push(`${url.protocol}//${url.host}${url.pathname}${url.search}`, `${url.host}${url.pathname}${url.search}`);
    if (url.pathname.length > 1) forms.push(`${url.pathname}${url.search}`);
  } catch {
    // assertEvmNetworkConfig refuses such a URL anyway.
  }
  return [...new Set(forms)];
}

function runtimeOf(network: EvmNetwork, config: EvmNetworkConfig): EvmNetworkRuntime {
  assertEvmNetworkConfig(network, config);
  const chain = defineChain({
    id: config.chainId,
    name: network,
    nativeCurrency: { name: network === 'ethereum' ? 'Ether' : 'POL', symbol: network === 'ethereum' ? 'ETH' : 'POL', decimals: 18 },
    rpcUrls: { default: { http: [config.rpcUrl] } },
  });
  const account = privateKeyToAccount(config.hotWalletPrivateKey);
  return {
    network,
    chainId: config.chainId,
    // No caching: viem would otherwise answer getBlockNumber from a cache for seconds, and depth is counted from it.
    client: createPublicClient({ chain, cacheTime: 0, transport: http(config.rpcUrl, { timeout: RPC_TIMEOUT_MS, retryCount: 2 }) }),
    account,
    address: account.address.toLowerCase(),
    requiredConfirmations: BigInt(config.requiredConfirmations),
    replaceAfterMs: config.replaceAfterMs,
    usdcTokenAddress: config.usdcTokenAddress && getAddress(config.usdcTokenAddress),
    tokenTransferGasLimit: config.tokenTransferGasLimit ?? DEFAULT_TOKEN_TRANSFER_GAS_LIMIT,
    feePolicy: {
      maxFeePerGasCapWei: config.maxFeePerGasCapWei,
      replacementBumpPercent: config.replacementBumpPercent ?? DEFAULT_REPLACEMENT_BUMP_PERCENT,
    },
    chainChecked: undefined,
  };
}

async function checkChainId(runtime: EvmNetworkRuntime): Promise<void> {
  const chainId = await runtime.client.getChainId();
  if (chainId !== runtime.chainId) throw new Error(`the ${runtime.network} node has chain id ${chainId}, configured is ${runtime.chainId}`);
}

/** What the request pays, as stored and as signed: a value transfer, or the token's transfer(to, amount). */
function paymentOf(runtime: EvmNetworkRuntime, request: BroadcastRequest) {
  const { kind, currency } = transferKind(request.currency, runtime.network);
  if (!isAddress(request.destination, { strict: false })) throw new Error(`destination ${request.destination} is not an EVM address`);
  const destination = getAddress(request.destination);
  const amountBaseUnits = toBaseUnits(request.amount, EVM_DECIMALS[currency]);
  if (kind === 'native') {
    return {
      currency,
      destination: destination.toLowerCase(),
      amountBaseUnits,
      call: { to: destination, value: amountBaseUnits, gas: NATIVE_TRANSFER_GAS_LIMIT },
    };
  }
  if (!runtime.usdcTokenAddress) throw new Error(`no USDC token address is configured for ${runtime.network}`);
  const data = encodeFunctionData({ abi: erc20Abi, functionName: 'transfer', args: [destination, amountBaseUnits] });
  return {
    currency,
    destination: destination.toLowerCase(),
    amountBaseUnits,
    call: { to: runtime.usdcTokenAddress, value: 0n, data, gas: runtime.tokenTransferGasLimit },
  };
}

async function signAttempt(
  runtime: EvmNetworkRuntime,
  transaction: TransactionSerializableEIP1559,
  attempt: number,
  now: Date,
): Promise<NewEvmAttempt> {
  const rawTransaction = await runtime.account.signTransaction(transaction);
  const fees: Eip1559Fees = { maxFeePerGas: transaction.maxFeePerGas!, maxPriorityFeePerGas: transaction.maxPriorityFeePerGas! };
  return { attempt, transactionHash: keccak256(rawTransaction), rawTransaction, gasLimit: transaction.gas!, ...fees, signedAt: now };
}

function latestAttempt(record: EvmTransactionRecord): EvmTransactionAttempt {
  const latest = record.attempts.at(-1);
  if (!latest) throw new Error(`withdrawal ${record.withdrawalId} has no attempt`);
  return latest;
}

async function receiptOrNull(client: EvmClient, hash: string): Promise<TransactionReceipt | null> {
  try {
    return await client.getTransactionReceipt({ hash: hash as Hex });
  } catch (error) {
    if (error instanceof TransactionReceiptNotFoundError) return null;
    throw error;
  }
}

async function transactionOrNull(client: EvmClient, hash: string): Promise<unknown> {
  try {
    return await client.getTransaction({ hash: hash as Hex });
  } catch (error) {
    if (error instanceof TransactionNotFoundError) return null;
    throw error;
  }
}

/** viem's one-line summary, without the request body (which holds only public bytes, but is long). */
function shortMessage(error: unknown): string {
  if (error && typeof error === 'object' && 'shortMessage' in error && typeof error.shortMessage === 'string') {
    // viem's details carry the node's own reason ("insufficient funds", "nonce too low").
    const details = 'details' in error && typeof error.details === 'string' ? ` (${error.details})` : '';
    return `${error.shortMessage}${details}`;
  }
  return error instanceof Error ? error.message : String(error);
}
