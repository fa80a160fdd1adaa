import type pg from 'pg';

/** The deposit watcher's cursor per network, and the (lower-case) hashes of the blocks read, to find a fork point. */

export interface DepositCursor {
  network: string;
  chainId: number;
  genesisHash: string;
  lastBlock: bigint;
}

export interface StoredBlock {
  number: bigint;
  hash: string;
  parentHash: string;
}

export async function findDepositCursor(pool: pg.Pool | pg.ClientBase, network: string): Promise<DepositCursor | undefined> {
  const result = await pool.query<{ chain_id: string; genesis_hash: string; last_block: string }>(
    'select chain_id::text, genesis_hash, last_block::text from evm_deposit_cursor where network = $1',
    [network],
  );
  const row = result.rows[0];
  return row && { network, chainId: Number(row.chain_id), genesisHash: row.genesis_hash, lastBlock: BigInt(row.last_block) };
}

/** The first read of a network starts at `lastBlock` (the head then); a cursor already there is kept (false). */
export async function startDepositCursor(client: pg.ClientBase, cursor: DepositCursor, now: Date): Promise<boolean> {
  const result = await client.query(
    `insert into evm_deposit_cursor (network, chain_id, genesis_hash, last_block, updated_at) values ($1, $2, $3, $4, $5)
     on conflict (network) do nothing`,
    [cursor.network, cursor.chainId, cursor.genesisHash, cursor.lastBlock.toString(), now],
  );
  return result.rowCount === 1;
}

/**
 * Moves the cursor from `expected` to `next` under its row lock, or answers false when another attempt moved it first.
 * `highestStored`: the highest block stored at or below the last block when the caller looked, so a cursor rewound and
 * read again meanwhile over other blocks does not pass.
 */
export async function moveDepositCursor(
  client: pg.ClientBase,
  move: {
    network: string;
    expected: DepositCursor & { highestStored?: { number: bigint; hash: string } };
    next: { lastBlock: bigint; chainId?: number; genesisHash?: string };
  },
  now: Date,
): Promise<boolean> {
  const result = await client.query(
    `update evm_deposit_cursor set last_block = $5, chain_id = $6, genesis_hash = $7, updated_at = $8
      where network = $1 and last_block = $2 and chain_id = $3 and genesis_hash = $4
        and ($9::bigint is null or (exists (select 1 from evm_scanned_block b where b.network = $1 and b.number = $9 and b.hash = $10)
                                    and not exists (select 1 from evm_scanned_block b where b.network = $1 and b.number > $9 and b.number <= $2)))`,
    [
      move.network,
      move.expected.lastBlock.toString(),
      move.expected.chainId,
      move.expected.genesisHash,
      move.next.lastBlock.toString(),
      move.next.chainId ?? move.expected.chainId,
      move.next.genesisHash ?? move.expected.genesisHash,
      now,
      move.expected.highestStored?.number.toString() ?? null,
      move.expected.highestStored?.hash ?? null,
    ],
  );
  return result.rowCount === 1;
}

/** The stored blocks at or below `from`, highest first, at most `limit`: where a rewind looks for the fork point. */
export async function findStoredBlocksDescending(pool: pg.Pool, network: string, from: bigint, limit: number): Promise<StoredBlock[]> {
  const result = await pool.query<{ number: string; hash: string; parent_hash: string }>(
    // Ordered by the column, not by the text the select names the same.
    `select b.number::text as number, b.hash, b.parent_hash from evm_scanned_block b
      where b.network = $1 and b.number <= $2 order by b.number desc limit $3`,
    [network, from.toString(), limit],
  );
  return result.rows.map((row) => ({ number: BigInt(row.number), hash: row.hash, parentHash: row.parent_hash }));
}

export async function findStoredBlock(pool: pg.Pool, network: string, number: bigint): Promise<StoredBlock | undefined> {
  const [block] = await findStoredBlocksDescending(pool, network, number, 1);
  return block?.number === number ? block : undefined;
}

export async function insertStoredBlocks(client: pg.Pool | pg.ClientBase, network: string, blocks: readonly StoredBlock[]): Promise<void> {
  if (blocks.length === 0) return;
  await client.query(
    `insert into evm_scanned_block (network, number, hash, parent_hash)
     select $1, number, hash, parent_hash from unnest($2::bigint[], $3::text[], $4::text[]) as b(number, hash, parent_hash)
     on conflict (network, number) do update set hash = excluded.hash, parent_hash = excluded.parent_hash`,
    [network, blocks.map((block) => block.number.toString()), blocks.map((block) => block.hash), blocks.map((block) => block.parentHash)],
  );
}

/** Forgets the blocks above the fork point (above -1: all of them). */
export async function deleteStoredBlocksAbove(client: pg.ClientBase, network: string, forkPoint: bigint): Promise<void> {
  await client.query('delete from evm_scanned_block where network = $1 and number > $2', [network, forkPoint.toString()]);
}

/** Keeps the hashes a reorganisation could still need: those at or above `lowest`. */
export async function pruneStoredBlocks(pool: pg.Pool, network: string, lowest: bigint): Promise<void> {
  await pool.query('delete from evm_scanned_block where network = $1 and number < $2', [network, lowest.toString()]);
}
