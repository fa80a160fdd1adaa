import { randomUUID } from 'node:crypto';
import type { EntityManager } from '@mikro-orm/postgresql';
import type pg from 'pg';
import { utcText } from './utc-text';

/** The chain each EVM network is on: recorded at first use, replaced only by an operator's adoption; hashes in lower case. */

export interface ChainIdentity {
  chainId: number;
  genesisHash: string;
}

export interface RecordedChainIdentity extends ChainIdentity {
  network: string;
  id: string;
  recordedAt: Date;
  adoptedAt: Date | null;
  adoptedBy: string | null;
}

type Queryable = pg.Pool | pg.ClientBase;

type Row = Omit<RecordedChainIdentity, 'chainId' | 'recordedAt' | 'adoptedAt'> & {
  chainId: string;
  recordedAt: string;
  adoptedAt: string | null;
};

const COLUMNS = `network, id, chain_id::text as "chainId", genesis_hash as "genesisHash",
  ${utcText('recorded_at')} as "recordedAt", ${utcText('adopted_at')} as "adoptedAt",
  adopted_by as "adoptedBy"`;

function identityOf(row: Row): RecordedChainIdentity {
  return {
    ...row,
    chainId: Number(row.chainId),
    recordedAt: new Date(row.recordedAt),
    adoptedAt: row.adoptedAt === null ? null : new Date(row.adoptedAt),
  };
}

export async function findChainIdentity(db: Queryable, network: string): Promise<RecordedChainIdentity | undefined> {
  const result = await db.query<Row>(`select ${COLUMNS} from evm_chain_identity where network = $1`, [network]);
  return result.rows[0] && identityOf(result.rows[0]);
}

/** The network's recorded identity, its row locked for the rest of the caller's transaction (an adoption). */
export async function lockChainIdentity(em: EntityManager, network: string): Promise<RecordedChainIdentity | undefined> {
  const rows = await em.execute<Row[]>(`select ${COLUMNS} from evm_chain_identity where network = ? for update`, [network]);
  return rows[0] && identityOf(rows[0]);
}

/** Every network's recorded identity (the operator CLI, in its transaction). */
export async function findChainIdentities(em: EntityManager): Promise<RecordedChainIdentity[]> {
  const rows = await em.execute<Row[]>(`select ${COLUMNS} from evm_chain_identity order by network`);
  return rows.map(identityOf);
}

/** The network's recorded identity, `seen` when none is yet; two first uses at once both answer the one recorded. */
export async function recordChainIdentityAtFirstUse(
  db: Queryable,
  network: string,
  seen: ChainIdentity,
  now: Date,
): Promise<RecordedChainIdentity> {
  const found = await findChainIdentity(db, network);
  if (found) return found;
  await db.query(
    `insert into evm_chain_identity (network, id, chain_id, genesis_hash, recorded_at) values ($1, $2, $3, $4, $5)
     on conflict (network) do nothing`,
    [network, randomUUID(), seen.chainId, seen.genesisHash.toLowerCase(), now],
  );
  const recorded = await findChainIdentity(db, network);
  if (!recorded) throw new Error(`the chain identity of ${network} was neither found nor recorded`);
  return recorded;
}

/** An operator's adoption, in the command's transaction: `next` becomes the network's chain, under a new id. */
export async function adoptChainIdentity(
  em: EntityManager,
  network: string,
  next: ChainIdentity,
  adoptedBy: string,
  now: Date,
): Promise<RecordedChainIdentity> {
  const rows = await em.execute<Row[]>(
    `insert into evm_chain_identity (network, id, chain_id, genesis_hash, recorded_at, adopted_at, adopted_by)
     values (?, ?, ?, ?, ?, ?, ?)
     on conflict (network) do update set id = excluded.id, chain_id = excluded.chain_id, genesis_hash = excluded.genesis_hash,
       recorded_at = excluded.recorded_at, adopted_at = excluded.adopted_at, adopted_by = excluded.adopted_by
     returning ${COLUMNS}`,
    [network, randomUUID(), next.chainId, next.genesisHash.toLowerCase(), now, now, adoptedBy],
  );
  return identityOf(rows[0]!);
}
