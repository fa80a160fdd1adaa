import type pg from 'pg';
import type { Logger } from '../core/logger';
import { orphanCryptoDeposits } from '../db/queries/crypto-deposit.queries';
import {
  deleteStoredBlocksAbove,
  findDepositCursor,
  findStoredBlocksDescending,
  moveDepositCursor,
} from '../db/queries/evm-deposit-scan.queries';
import type { DepositCursor, StoredBlock } from '../db/queries/evm-deposit-scan.queries';
import { inPgTransaction } from '../db/pg-transaction';
import type { EvmDepositReader } from './adapters/chain/evm/evm-deposit-reader';
import type { ActivityDependencies } from './dependencies';

/**
 * The fork point: the highest stored block whose hash the node still has (`lastBlock` itself in the usual case: one call).
 * None of the kept ones: the reorganisation goes deeper than what is kept, and the answer is the block below the lowest kept.
 */
export async function findForkPoint(
  pool: pg.Pool,
  reader: EvmDepositReader,
  network: string,
  lastBlock: bigint,
  kept: number,
  heartbeat: () => void,
): Promise<{ number: bigint; deeperThanKept: boolean; highestStored: StoredBlock | undefined }> {
  const stored = await findStoredBlocksDescending(pool, network, lastBlock, kept);
  // What was judged: a rewind applies only while it is still the highest block stored.
  const highestStored = stored[0];
  for (const [index, block] of stored.entries()) {
    const onChain = await reader.blockHash(block.number);
    heartbeat();
    // The highest kept block still there: whatever was read above it (a block skipped as malformed) stands too.
    if (onChain === block.hash) return { number: index === 0 ? lastBlock : block.number, deeperThanKept: false, highestStored };
  }
  const lowest = stored.at(-1);
  return lowest
    ? { number: lowest.number - 1n, deeperThanKept: true, highestStored }
    : { number: lastBlock, deeperThanKept: false, highestStored };
}

/**
 * In one transaction: the cursor moves back to `next`, the blocks above the fork point are forgotten and their deposits
 * orphaned. Only from where the cursor was found, so a concurrent attempt that rewound first makes this one a no-op.
 */
export async function rewindTo(
  deps: Pick<ActivityDependencies, 'pool' | 'clock'>,
  rewind: {
    network: string;
    /** Where the cursor was found, with the highest block stored when the fork point was sought. */
    cursor: DepositCursor & { highestStored?: StoredBlock | undefined };
    forkPoint: bigint;
    next: DepositCursor;
    metrics: { rewound(network: string, blocks: number): void } | undefined;
    log: Logger;
  },
): Promise<{ cursor: DepositCursor; blocks: number }> {
  const { network, cursor, forkPoint, next } = rewind;
  const now = deps.clock.now();
  const outcome = await inPgTransaction(deps.pool, async (client) => {
    if (!(await moveDepositCursor(client, { network, expected: cursor, next }, now))) return undefined;
    const orphaned = await orphanCryptoDeposits(client, network, forkPoint, now);
    await deleteStoredBlocksAbove(client, network, forkPoint);
    return orphaned;
  });
  if (!outcome) return { cursor: (await findDepositCursor(deps.pool, network)) ?? cursor, blocks: 0 };
  const blocks = Number(cursor.lastBlock - forkPoint);
  rewind.metrics?.rewound(network, blocks);
  rewind.log.warn(
    `reorganisation of ${network}: rewound ${blocks} block(s) to block ${forkPoint}; ${outcome.orphaned.length} deposit(s) not yet credited end UNSUCCESSFUL` +
      (outcome.credited.length > 0
        ? `; ${outcome.credited.length} credited deposit(s) lost their block: reconciliation findings (${outcome.credited.join(', ')})`
        : ''),
  );
  if (outcome.credited.length > 0)
    rewind.log.error(
      `credited deposits ${outcome.credited.join(', ')} on ${network} are no longer on chain: see reconciliation (never reversed automatically)`,
    );
  return { cursor: next, blocks };
}
