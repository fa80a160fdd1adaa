import { createTestClient, http, publicActions } from 'viem';
import { localChain } from '../../../dev/evm-node';
import type { RunningEvmNode } from '../../../dev/evm-node';

/** The block interval while nothing is faulted (seconds: viem's hardhat mode sends it in ms itself): blocks keep coming with no transactions, so confirmations are reached. */
const BLOCK_INTERVAL_SECONDS = 1;
/** How long mined blocks stay before a reorganisation takes them back: long enough for a worker to read their receipts. */
const REORG_VISIBLE_MS = 2_000;

export function chainClient(node: RunningEvmNode) {
  return createTestClient({
    chain: localChain(node.chainId, node.rpcUrl),
    mode: 'hardhat',
    cacheTime: 0,
    transport: http(node.rpcUrl, { retryCount: 2, timeout: 10_000 }),
  }).extend(publicActions);
}

/**
 * The chain's faults, through Hardhat's own methods on a direct connection (never through the
 * workers' proxies): a mining stall, and a reorganisation of 1–3 blocks. Hardhat has no forks,
 * so a reorganisation is made of a snapshot and a revert: mining stops, the workers' transactions
 * gather in the pool, exactly `depth` blocks are mined (the workers see receipts at depth 1 to
 * `depth`), then the chain goes back to the snapshot, which drops those blocks and their
 * transactions (the pool as it was at the snapshot). The workers confirm at
 * EVM_CONFIRMATIONS_ETHEREUM = 4, deeper than any reorganisation here, as a real deployment
 * confirms deeper than the reorganisations its chain has.
 */
export class ChainControl {
  readonly client: ReturnType<typeof chainClient>;

  constructor(node: RunningEvmNode) {
    this.client = chainClient(node);
  }

  /**
   * A block every second, as a real chain has a block interval, and no block per transaction:
   * Hardhat's automine refuses a transaction whose nonce is ahead of the chain ("can't be queued
   * when automining") where a real node queues it, and the workers send their nonces in whatever
   * order their activities run.
   */
  async mineNormally(): Promise<void> {
    await this.client.setAutomine(false);
    await this.client.setIntervalMining({ interval: BLOCK_INTERVAL_SECONDS });
  }

  async stallMining(): Promise<void> {
    await this.client.setAutomine(false);
    await this.client.setIntervalMining({ interval: 0 });
  }

  /** Returns the blocks the reorganisation took back (their numbers), after mining is normal again. */
  async reorganise(depth: number, collectMs: number, sleep: (ms: number) => Promise<void>): Promise<{ from: bigint; to: bigint }> {
    await this.stallMining();
    try {
      const snapshot = await this.client.snapshot();
      const base = await this.client.getBlockNumber();
      await sleep(collectMs);
      await this.client.mine({ blocks: depth });
      const top = await this.client.getBlockNumber();
      await sleep(REORG_VISIBLE_MS);
      await this.client.revert({ id: snapshot });
      const after = await this.client.getBlockNumber();
      if (after !== base) throw new Error(`evm_revert to snapshot ${snapshot} left the chain at block ${after}, not ${base}`);
      return { from: base + 1n, to: top };
    } finally {
      await this.mineNormally();
    }
  }
}
