import { SharedBlockReads } from '../../activities/adapters/chain/utxo/utxo-shared-block-reads';
import type { ScanDependencies, ScanResult } from '../../activities/adapters/chain/utxo/utxo-block-scanner';

/** A chain of `head` blocks read by a fake scanner that takes a turn of the event loop per read and counts its calls. */
function fakeChain(initialHead: number) {
  let lastBlock = 0;
  const chain = { head: initialHead };
  const calls: number[] = [];
  const scan = async (_deps: ScanDependencies, maxBlocks: number, onBlock: () => void = () => {}): Promise<ScanResult> => {
    calls.push(maxBlocks);
    // The node's head as the read begins, as scanUtxoBlocks asks it first.
    const head = chain.head;
    await new Promise((resolve) => setImmediate(resolve));
    const from = lastBlock;
    lastBlock = Math.min(head, lastBlock + maxBlocks);
    for (let block = from; block < lastBlock; block += 1) onBlock();
    return { head, lastBlock, blocksRead: lastBlock - from, coinsFound: 0, depositsSeen: 0, rewound: 0 };
  };
  return { scan, calls, chain };
}

const deps = { network: 'bitcoin' } as ScanDependencies;

describe('SharedBlockReads', () => {
  it('fetches each block once however many callers read at once, and each hears of the blocks for its heartbeat', async () => {
    const chain = fakeChain(15);
    const reads = new SharedBlockReads(chain.scan);
    const heard = [0, 0, 0];
    const results = await Promise.all(heard.map((_, caller) => reads.read(deps, 500, () => (heard[caller]! += 1))));
    // The first read, and one after it for the two that joined it (nothing left to read: the head has not moved).
    expect(chain.calls).toEqual([20, 20]);
    expect(results.map((result) => result.lastBlock)).toEqual([15, 15, 15]);
    expect(heard).toEqual([15, 15, 15]);
  });

  it('a caller that joins a read under way also gets a read begun after it: blocks mined meanwhile are read', async () => {
    const chain = fakeChain(15);
    const reads = new SharedBlockReads(chain.scan);
    const first = reads.read(deps, 500);
    chain.chain.head = 18;
    const joiner = await reads.read(deps, 500);
    expect(await first).toMatchObject({ lastBlock: 15 });
    expect(joiner).toMatchObject({ lastBlock: 18, head: 18 });
    expect(chain.calls).toEqual([20, 20]);
  });

  it('reads in shares of twenty blocks up to what the caller asked for, and stops at the head', async () => {
    const chain = fakeChain(1000);
    const reads = new SharedBlockReads(chain.scan);
    const first = await reads.read(deps, 50);
    expect(first).toMatchObject({ lastBlock: 60, blocksRead: 60, head: 1000 });
    expect(chain.calls).toEqual([20, 20, 20]);
    const short = fakeChain(30);
    const rest = await new SharedBlockReads(short.scan).read(deps, 500);
    expect(rest).toMatchObject({ lastBlock: 30, blocksRead: 30 });
    expect(short.calls).toEqual([20, 20]);
  });

  it('starts a new read once the previous one ended, and a failed read fails its callers without stopping the next', async () => {
    let fail = true;
    const chain = fakeChain(5);
    const reads = new SharedBlockReads(async (...args) => {
      if (fail) {
        fail = false;
        throw new Error('node down');
      }
      return chain.scan(...args);
    });
    await expect(Promise.all([reads.read(deps, 10), reads.read(deps, 10)])).rejects.toThrow('node down');
    await expect(reads.read(deps, 10)).resolves.toMatchObject({ lastBlock: 5 });
  });
});
