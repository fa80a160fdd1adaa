import { BaseError, erc20Abi, getAddress, numberToHex } from 'viem';
import type { Address } from 'viem';
import type { EvmNetwork } from '../../../../core/networks';
import { evmClient } from './evm-network-runtime';
import type { EvmClient } from './evm-network-runtime';
import { ERC20_TRANSFER_TOPIC, blockNumberOf, parseBlock, parseTransferLogs, receiptOutcome } from './evm-deposit-parsing';
import type { ParsedBlock, ScannedBlockHeader, SeenTransfer, SkippedItem } from './evm-deposit-parsing';

/** What the deposit watcher needs to know of one network: its node (the withdrawals' own settings) and its token. */
export interface EvmDepositNetworkConfig {
  rpcUrl: string;
  chainId: number;
  /** The USDC token: its Transfer logs are deposits too. Without it, only native transfers are read. */
  usdcTokenAddress?: string;
  /** On-chain decimals of the token, checked against the contract's own decimals() before the first read. */
  usdcDecimals: number;
}

const RPC_TIMEOUT_MS = 15_000;

/** The deposit watcher's reads from one network's node, over raw JSON-RPC parsed in evm-deposit-parsing.ts. */
export class EvmDepositReader {
  private readonly client: EvmClient;
  private readonly token: Address | undefined;
  private checked: Promise<void> | undefined;

  constructor(
    readonly network: EvmNetwork,
    private readonly config: EvmDepositNetworkConfig,
  ) {
    this.client = evmClient(network, config.chainId, config.rpcUrl, RPC_TIMEOUT_MS);
    this.token = config.usdcTokenAddress ? getAddress(config.usdcTokenAddress) : undefined;
  }

  /**
   * Once per worker (again after a failure), checks the configured chain id and the token's decimals; then, at every call,
   * reads the genesis hash afresh (a node replaced behind the URL has another).
   */
  async genesisHash(): Promise<string> {
    this.checked ??= this.check().catch((error: unknown) => {
      this.checked = undefined;
      throw error;
    });
    await this.checked;
    const genesis = await this.blockHash(0n);
    if (!genesis) throw new Error(`the ${this.network} node has no readable genesis block`);
    return genesis;
  }

  /** The node's chain id, as it answers now. */
  chainId(): Promise<number> {
    return this.client.getChainId();
  }

  private async check(): Promise<void> {
    const chainId = await this.client.getChainId();
    if (chainId !== this.config.chainId)
      throw new Error(`the ${this.network} node has chain id ${chainId}, configured is ${this.config.chainId}`);
    if (this.token) {
      const decimals = await this.client.readContract({ address: this.token, abi: erc20Abi, functionName: 'decimals' });
      if (decimals !== this.config.usdcDecimals)
        throw new Error(`the ${this.network} USDC token ${this.token} has ${decimals} decimals, not ${this.config.usdcDecimals}`);
    }
  }

  async head(): Promise<bigint> {
    return this.client.getBlockNumber({ cacheTime: 0 });
  }

  /**
   * The height of the node's finalized block, or null while it names none (a new chain, before its first finalization: the
   * node answers with an error). A node that cannot be reached throws, as for every other read.
   */
  async finalized(): Promise<bigint | null> {
    try {
      const raw: unknown = await this.client.request({ method: 'eth_getBlockByNumber', params: ['finalized', false] });
      return blockNumberOf(raw) ?? null;
    } catch (error) {
      // geth before its first finalization: "finalized block not found". Any other refusal (a node that knows no such tag,
      // a rate limit) fails the batch, retried and seen, rather than crediting nothing without a word.
      if (error instanceof BaseError && /finalized block not found|unknown block/i.test(`${error.details} ${error.shortMessage}`))
        return null;
      throw error;
    }
  }

  /** The hash of the node's block at this height (lower case), or null when it has none (yet). */
  async blockHash(number: bigint): Promise<string | null> {
    return (await this.header(number))?.hash ?? null;
  }

  /** The node's block at this height without its transactions, or null when it has none (yet). */
  async header(number: bigint): Promise<ScannedBlockHeader | null> {
    const parsed = await this.block(number, false);
    if (parsed?.kind === 'malformed') throw new Error(`the ${this.network} node answered block ${number} malformed: ${parsed.reason}`);
    return parsed?.header ?? null;
  }

  /** One block with its transactions; null when the node does not have it (it is behind, or was reorganised meanwhile). */
  async block(number: bigint, withTransactions = true): Promise<ParsedBlock | null> {
    const raw: unknown = await this.client.request({ method: 'eth_getBlockByNumber', params: [numberToHex(number), withTransactions] });
    return raw === null ? null : parseBlock(raw, number);
  }

  /** The token's Transfer logs of a range of blocks, in ONE call whatever the number of deposit addresses (filtered by the caller). */
  async tokenTransfers(from: bigint, to: bigint): Promise<{ transfers: SeenTransfer[]; skipped: SkippedItem[] }> {
    if (!this.token) return { transfers: [], skipped: [] };
    const raw: unknown = await this.client.request({
      method: 'eth_getLogs',
      params: [{ address: this.token, topics: [ERC20_TRANSFER_TOPIC], fromBlock: numberToHex(from), toBlock: numberToHex(to) }],
    });
    return parseTransferLogs(raw, this.token);
  }

  /** Whether a native transfer's transaction succeeded in the block it was seen in (a reverted one moved nothing). */
  async receipt(transfer: SeenTransfer): Promise<ReturnType<typeof receiptOutcome>> {
    const raw: unknown = await this.client.request({
      method: 'eth_getTransactionReceipt',
      params: [transfer.transactionHash as `0x${string}`],
    });
    return receiptOutcome(raw, transfer.blockHash);
  }
}
