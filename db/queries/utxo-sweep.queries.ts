import type pg from 'pg';
import type { EntityManager } from '@mikro-orm/postgresql';
import { utcText } from './utc-text';

/** Sweeps of credited deposits on the UTXO networks to the hot wallet (the migration utxo_sweep says how). */

type Queryable = pg.Pool | pg.ClientBase;

export interface UtxoSweepRecord {
  id: string;
  network: string;
  txid: string;
  rawTransaction: string;
  inputs: number;
  amountBaseUnits: bigint;
  sentBaseUnits: bigint;
  status: 'IN_FLIGHT' | 'SWEPT' | 'FAILED';
  createdAt: Date;
}

/** A credited deposit's output no sweep took, with the deposit index its address derives from. */
export interface SweepableDeposit {
  id: string;
  txid: string;
  vout: number;
  /** Exact decimal text in whole coins. */
  amount: string;
  address: string;
  depositIndex: number;
}

const COLUMNS = `id, network, txid, raw_transaction as "rawTransaction", inputs, amount_base_units::text as "amountBaseUnits",
  sent_base_units::text as "sentBaseUnits", status, created_at as "createdAt"`;

type Row = Omit<UtxoSweepRecord, 'amountBaseUnits' | 'sentBaseUnits'> & { amountBaseUnits: string; sentBaseUnits: string };

function recordOf(row: Row | undefined): UtxoSweepRecord | undefined {
  return row && { ...row, amountBaseUnits: BigInt(row.amountBaseUnits), sentBaseUnits: BigInt(row.sentBaseUnits) };
}

/** The network's sweep in flight (at most one). */
export async function findUtxoSweepInFlight(db: Queryable, network: string): Promise<UtxoSweepRecord | undefined> {
  const { rows } = await db.query<Row>(`select ${COLUMNS} from utxo_sweep where network = $1 and status = 'IN_FLIGHT'`, [network]);
  return recordOf(rows[0]);
}

/** Credited deposits no sweep took: on the network, not orphaned (a finding for an operator, not for a sweep). */
const SWEEPABLE = `d.network = $1 and d.stage = 'CREDITED' and d.sweep_id is null and d.utxo_sweep_id is null and d.block_orphaned_at is null`;

/** The credited deposits no sweep took, largest first (the smallest wait for lower fees), at most `limit`. */
export async function findSweepableUtxoDeposits(db: Queryable, network: string, limit: number): Promise<SweepableDeposit[]> {
  const { rows } = await db.query<SweepableDeposit>(
    `select d.id, d.transaction_hash as txid, d.transfer_index as vout, trim_scale(d.amount)::text as amount, d.address,
            p.deposit_index as "depositIndex"
       from crypto_deposit d join partner p on p.id = d.partner_id
      where ${SWEEPABLE}
      order by d.amount desc, d.credited_at, d.id
      limit $2`,
    [network, limit],
  );
  return rows;
}

/** What all of them add up to, in whole coins (exact text). */
export async function sweepableUtxoTotal(db: Queryable, network: string): Promise<string> {
  const { rows } = await db.query<{ total: string }>(
    `select coalesce(trim_scale(sum(d.amount)), 0)::text as total from crypto_deposit d where ${SWEEPABLE}`,
    [network],
  );
  return rows[0]!.total;
}

/** A FAILED sweep gives back the deposits whose outputs are still unspent: the next sweep takes them. */
export async function releaseUtxoSweepDeposits(
  client: pg.ClientBase,
  sweepId: string,
  outputs: ReadonlyArray<{ txid: string; vout: number }>,
): Promise<number> {
  const { rowCount } = await client.query(
    `update crypto_deposit d set utxo_sweep_id = null
       from unnest($2::text[], $3::int[]) as output(txid, vout)
      where d.utxo_sweep_id = $1 and d.transaction_hash = output.txid and d.transfer_index = output.vout`,
    [sweepId, outputs.map((output) => output.txid), outputs.map((output) => output.vout)],
  );
  return rowCount ?? 0;
}

/** In the signer's transaction: the sweep with its bytes, and the deposits it takes (each by one sweep only). */
export async function storeUtxoSweep(
  client: pg.ClientBase,
  sweep: Omit<UtxoSweepRecord, 'status'>,
  depositIds: readonly string[],
): Promise<void> {
  await client.query(
    `insert into utxo_sweep (id, network, txid, raw_transaction, inputs, amount_base_units, sent_base_units, status, created_at)
     values ($1, $2, $3, $4, $5, $6, $7, 'IN_FLIGHT', $8)`,
    [
      sweep.id,
      sweep.network,
      sweep.txid,
      sweep.rawTransaction,
      sweep.inputs,
      sweep.amountBaseUnits.toString(),
      sweep.sentBaseUnits.toString(),
      sweep.createdAt,
    ],
  );
  const taken = await client.query(
    `update crypto_deposit set utxo_sweep_id = $1 where id = any($2::uuid[]) and utxo_sweep_id is null and stage = 'CREDITED'`,
    [sweep.id, depositIds],
  );
  if (taken.rowCount !== depositIds.length) throw new Error(`a deposit of sweep ${sweep.id} was taken by another`);
}

/** SWEPT with its fee's transfer, or FAILED; once only (false when it was final already). */
export async function finishUtxoSweep(
  client: pg.ClientBase,
  id: string,
  outcome: { status: 'SWEPT'; feeTransferId: string } | { status: 'FAILED'; reason: 'INPUTS_SPENT' },
  now: Date,
): Promise<boolean> {
  const { rowCount } = await client.query(
    `update utxo_sweep set status = $2, fee_transfer_id = $3, failure_reason = $4, finished_at = $5
      where id = $1 and status = 'IN_FLIGHT'`,
    [
      id,
      outcome.status,
      outcome.status === 'SWEPT' ? outcome.feeTransferId : null,
      outcome.status === 'FAILED' ? outcome.reason : null,
      now,
    ],
  );
  return rowCount === 1;
}

/** A UTXO sweep as the operator CLI lists it; amounts in base units as text, times in UTC. */
export interface ListedUtxoSweep {
  id: string;
  network: string;
  transactionHash: string;
  deposits: number;
  amountBaseUnits: string;
  sentBaseUnits: string;
  feeBaseUnits: string;
  status: string;
  failureReason: string | null;
  createdAt: string;
  finishedAt: string | null;
}

/** Newest first; with a partner, the sweeps that took one of its deposits. */
export async function findUtxoSweeps(
  em: EntityManager,
  filter: { status: string | undefined; partnerId: string | undefined; limit: number },
): Promise<ListedUtxoSweep[]> {
  return em.execute(
    `select s.id, s.network, s.txid as "transactionHash", s.inputs as deposits, s.amount_base_units::text as "amountBaseUnits",
            s.sent_base_units::text as "sentBaseUnits", (s.amount_base_units - s.sent_base_units)::text as "feeBaseUnits",
            s.status, s.failure_reason as "failureReason", ${utcText('s.created_at')} as "createdAt", ${utcText('s.finished_at')} as "finishedAt"
       from utxo_sweep s
      where (?::text is null or s.status = ?)
        and (?::uuid is null or exists (select 1 from crypto_deposit d where d.utxo_sweep_id = s.id and d.partner_id = ?::uuid))
      order by s.created_at desc, s.id desc limit ?`,
    [filter.status ?? null, filter.status ?? null, filter.partnerId ?? null, filter.partnerId ?? null, filter.limit],
  );
}
