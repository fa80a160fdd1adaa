import { scanUtxoBlocks } from './utxo-block-scanner';
import type { ScanDependencies, ScanResult } from './utxo-block-scanner';

/** Blocks one shared read takes at most (the deposit watcher's batch): a caller that wants more joins the next. */
const BLOCKS_PER_SHARED_READ = 20;

/**
 * A network's blocks read once per process, whoever asks. Twenty withdrawals signing at once, the deposit watcher and custody
 * each reading the same blocks would fetch every block twenty times over the node's few RPC slots, and fall further behind
 * the chain the more withdrawals wait for the coins those blocks hold: a loop that feeds itself. A caller that comes while a
 * read is under way joins it (hearing of each block it records, for its heartbeat), then goes on from where it ended.
 */
export class SharedBlockReads {
  private readonly reads = new Map<string, { done: Promise<ScanResult>; listeners: Set<() => void> }>();

  constructor(private readonly scan: typeof scanUtxoBlocks = scanUtxoBlocks) {}

  /** Up to `maxBlocks` blocks after the last one read (fewer once at the head), in shared reads. */
  async read(deps: ScanDependencies, maxBlocks: number, onBlock?: () => void): Promise<ScanResult> {
    const total: ScanResult = { head: 0, lastBlock: 0, blocksRead: 0, coinsFound: 0, depositsSeen: 0, rewound: 0 };
    // A read joined under way knows the head as it was when it began, before this call: the caller also gets one begun after
    // it (custody judges the coins against the node's head as it reads them).
    for (let first = true; ; first = false) {
      const { result: read, joined } = await this.join(deps, onBlock);
      total.head = read.head;
      total.lastBlock = read.lastBlock;
      total.blocksRead += read.blocksRead;
      total.coinsFound += read.coinsFound;
      total.depositsSeen += read.depositsSeen;
      total.rewound += read.rewound;
      if (total.blocksRead >= maxBlocks) break;
      // Caught up, or nothing read while behind (a reorganisation met mid-read, a node behind what was read: the next
      // caller goes on), as of a read begun after this call.
      if (!(first && joined) && (read.lastBlock >= read.head || read.blocksRead === 0)) break;
    }
    return total;
  }

  private async join(deps: ScanDependencies, onBlock?: () => void): Promise<{ result: ScanResult; joined: boolean }> {
    let read = this.reads.get(deps.network);
    const joined = read !== undefined;
    if (!read) {
      const listeners = new Set<() => void>();
      const done = this.scan(deps, BLOCKS_PER_SHARED_READ, () => {
        for (const listener of listeners) {
          try {
            listener();
          } catch {
            // The heartbeat of a caller whose activity has ended: the read goes on for the others.
          }
        }
      }).finally(() => this.reads.delete(deps.network));
      read = { done, listeners };
      this.reads.set(deps.network, read);
    }
    if (onBlock) read.listeners.add(onBlock);
    try {
      return { result: await read.done, joined };
    } finally {
      if (onBlock) read.listeners.delete(onBlock);
    }
  }
}
