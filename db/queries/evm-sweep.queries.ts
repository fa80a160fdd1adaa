import { randomUUID } from 'node:crypto';
import type { EntityManager } from '@mikro-orm/postgresql';
import type pg from 'pg';
import { inPgTransaction } from '../pg-transaction';
import { utcText } from './utc-text';

/** Sweeps of credited deposits to the hot wallet. Amounts are integers in the currency's smallest unit, as signed. */

export type EvmSweepStatus = 'IN_FLIGHT' | 'SWEPT' | 'FAILED';
export type EvmSweepFailure = 'ADDRESS_NOT_DERIVED' | 'NOTHING_AT_ADDRESS' | 'REVERTED' | 'NONCE_MISMATCH';

export interface EvmSweepRecord {
  id: string;
  network: string;
  currency: string;
  /** Lower case. */
  address: string;
  partnerId: string;
  depositIndex: number;
  hotWallet: string;
  amountBaseUnits: bigint;
  sentBaseUnits: bigint | null;
  status: EvmSweepStatus;
  failureReason: EvmSweepFailure | null;
  gasTopUpTransactionId: string | null;
  gasTopUpBaseUnits: bigint | null;
  gasReadyAt: Date | null;
  sentAt: Date | null;
  transactionHash: string | null;
  createdAt: Date;
}

type SweepRow = Omit<EvmSweepRecord, 'amountBaseUnits' | 'sentBaseUnits' | 'gasTopUpBaseUnits'> & {
  amountBaseUnits: string;
  sentBaseUnits: string | null;
  gasTopUpBaseUnits: string | null;
};

const SWEEP_COLUMNS = `id, network, currency, address, partner_id as "partnerId", deposit_index as "depositIndex",
  hot_wallet as "hotWallet", amount_base_units::text as "amountBaseUnits", sent_base_units::text as "sentBaseUnits", status,
  failure_reason as "failureReason", gas_top_up_transaction_id as "gasTopUpTransactionId",
  gas_top_up_base_units::text as "gasTopUpBaseUnits", gas_ready_at as "gasReadyAt", sent_at as "sentAt",
  transaction_hash as "transactionHash", created_at as "createdAt"`;

function recordOf(row: SweepRow): EvmSweepRecord {
  const units = (text: string | null) => (text === null ? null : BigInt(text));
  return {
    ...row,
    amountBaseUnits: BigInt(row.amountBaseUnits),
    sentBaseUnits: units(row.sentBaseUnits),
    gasTopUpBaseUnits: units(row.gasTopUpBaseUnits),
  };
}

export async function findEvmSweep(db: pg.Pool | pg.PoolClient, id: string): Promise<EvmSweepRecord | undefined> {
  const result = await db.query<SweepRow>(`select ${SWEEP_COLUMNS} from evm_sweep where id = $1`, [id]);
  return result.rows[0] && recordOf(result.rows[0]);
}

/** Per currency on the network: above this (exact decimal text) credited and unswept, an address is swept. */
export type SweepThresholds = Readonly<Record<string, string>>;

export interface DueSweep {
  /** As the deposits store it (EIP-55). */
  address: string;
  currency: string;
  /** Exact decimal text. */
  credited: string;
}

/**
 * Addresses whose credited, unswept deposits of a currency exceed its threshold and no sweep works on, oldest credit
 * first. Deposits whose block was orphaned after their credit are left to operators.
 */
export async function findDueSweeps(pool: pg.Pool, network: string, thresholds: SweepThresholds, limit: number): Promise<DueSweep[]> {
  const currencies = Object.keys(thresholds);
  if (currencies.length === 0) return [];
  const result = await pool.query<DueSweep>(
    `select d.address, d.currency, trim_scale(sum(d.amount))::text as credited
       from crypto_deposit d
       join unnest($2::text[], $3::numeric[]) as t(currency, threshold) on t.currency = d.currency
      where d.network = $1 and d.stage = 'CREDITED' and d.sweep_id is null and d.block_orphaned_at is null
        and not exists (select 1 from evm_sweep s where s.network = d.network and s.address = lower(d.address) and s.status = 'IN_FLIGHT')
      group by d.address, d.currency, t.threshold
     having sum(d.amount) > t.threshold
      order by min(d.credited_at), d.address, d.currency
      limit $4`,
    [network, currencies, currencies.map((currency) => thresholds[currency]), limit],
  );
  return result.rows;
}

/**
 * The network's sweeps in flight, by address and currency: each round starts (or joins) their workflows too, so a sweep
 * whose workflow ended early (terminated, or left on a task queue no sweeper serves) is taken up again.
 */
export async function findInFlightSweeps(
  pool: pg.Pool,
  network: string,
  limit: number,
): Promise<Array<Pick<DueSweep, 'address' | 'currency'>>> {
  const result = await pool.query<Pick<DueSweep, 'address' | 'currency'>>(
    `select address, currency from evm_sweep where network = $1 and status = 'IN_FLIGHT' order by created_at limit $2`,
    [network, limit],
  );
  return result.rows;
}

export type SweepClaim =
  | { kind: 'claimed'; sweep: EvmSweepRecord; resumed: boolean }
  /** Another currency's sweep of the address is in flight: this one waits for the sweeper's next round. */
  | { kind: 'busy'; inFlight: string }
  | { kind: 'nothing'; reason: string };

/**
 * Takes the address's credited, unswept deposits of the currency into a new sweep under their row locks, if above the
 * threshold; or answers its sweep already in flight (resumed). Of two concurrent claims, one links the deposits.
 */
export async function claimEvmSweep(
  pool: pg.Pool,
  input: { network: string; address: string; currency: string; decimals: number; threshold: string; hotWallet: string; now: Date },
): Promise<SweepClaim> {
  const address = input.address.toLowerCase();
  return inPgTransaction(pool, async (client) => {
    const inFlight = async (): Promise<SweepClaim | undefined> => {
      const found = await client.query<SweepRow>(
        `select ${SWEEP_COLUMNS} from evm_sweep where network = $1 and address = $2 and status = 'IN_FLIGHT'`,
        [input.network, address],
      );
      const row = found.rows[0];
      if (!row) return undefined;
      return row.currency === input.currency
        ? { kind: 'claimed', sweep: recordOf(row), resumed: true }
        : { kind: 'busy', inFlight: row.id };
    };
    const before = await inFlight();
    if (before) return before;
    const deposits = await client.query<{ id: string; partner_id: string; deposit_index: number }>(
      `select d.id, d.partner_id, p.deposit_index from crypto_deposit d join partner p on p.id = d.partner_id
        where d.network = $1 and lower(d.address) = $2 and d.currency = $3
          and d.stage = 'CREDITED' and d.sweep_id is null and d.block_orphaned_at is null
        order by d.id for update of d`,
      [input.network, address, input.currency],
    );
    if (deposits.rows.length === 0) return (await inFlight()) ?? { kind: 'nothing', reason: 'no credited deposit is left to sweep' };
    const owners = new Set(deposits.rows.map((row) => row.partner_id));
    if (owners.size !== 1) throw new Error(`deposits at ${address} on ${input.network} belong to ${owners.size} partners: not sweeping`);
    const ids = deposits.rows.map((row) => row.id);
    const sum = await client.query<{ credited: string; units: string; above: boolean }>(
      `select trim_scale(sum(amount))::text as credited, trunc(sum(amount) * power(10::numeric, $2))::text as units, sum(amount) > $3::numeric as above
         from crypto_deposit where id = any($1::uuid[])`,
      [ids, input.decimals, input.threshold],
    );
    const { credited, units, above } = sum.rows[0]!;
    if (!above)
      return { kind: 'nothing', reason: `${credited} ${input.currency} credited is not above the threshold of ${input.threshold}` };
    const id = randomUUID();
    const inserted = await client.query<SweepRow>(
      `insert into evm_sweep (id, network, currency, address, partner_id, deposit_index, hot_wallet, amount_base_units, status, created_at)
       values ($1, $2, $3, $4, $5, $6, $7, $8, 'IN_FLIGHT', $9)
       on conflict (network, address) where status = 'IN_FLIGHT' do nothing
       returning ${SWEEP_COLUMNS}`,
      [
        id,
        input.network,
        input.currency,
        address,
        deposits.rows[0]!.partner_id,
        deposits.rows[0]!.deposit_index,
        input.hotWallet.toLowerCase(),
        units,
        input.now,
      ],
    );
    const row = inserted.rows[0];
    // Another currency's claim of the address committed while we locked ours.
    if (!row) return (await inFlight()) ?? { kind: 'nothing', reason: 'another sweep of the address just started' };
    await client.query('update crypto_deposit set sweep_id = $1 where id = any($2::uuid[])', [id, ids]);
    return { kind: 'claimed', sweep: recordOf(row), resumed: false };
  });
}

/** The native coin at the address not ours to spend on gas: deposits seen, credited and not swept, or below the minimum. */
export async function reservedNativeAt(
  pool: pg.Pool,
  network: string,
  address: string,
  currency: string,
  decimals: number,
): Promise<bigint> {
  const result = await pool.query<{ units: string }>(
    `select coalesce(trunc(sum(amount) * power(10::numeric, $4)), 0)::text as units from crypto_deposit
      where network = $1 and lower(address) = $2 and currency = $3 and sweep_id is null and stage in ('SEEN', 'CREDITED', 'BELOW_MINIMUM')`,
    [network, address.toLowerCase(), currency, decimals],
  );
  return BigInt(result.rows[0]!.units);
}

/**
 * Records the token sweep's gas top-up before it is signed, so a retry signs the same; undefined once the sweep no longer
 * waits for gas (the gas measured then may be what its own sweep spent).
 */
export async function setGasTopUp(
  pool: pg.Pool,
  id: string,
  amountBaseUnits: bigint,
): Promise<{ transactionId: string; amountBaseUnits: bigint } | undefined> {
  const result = await pool.query<{ gas_top_up_transaction_id: string; gas_top_up_base_units: string }>(
    `update evm_sweep set gas_top_up_transaction_id = coalesce(gas_top_up_transaction_id, $2),
                          gas_top_up_base_units = coalesce(gas_top_up_base_units, $3)
      where id = $1 and status = 'IN_FLIGHT' and gas_ready_at is null
      returning gas_top_up_transaction_id, gas_top_up_base_units::text`,
    [id, randomUUID(), amountBaseUnits.toString()],
  );
  const row = result.rows[0];
  return row && { transactionId: row.gas_top_up_transaction_id, amountBaseUnits: BigInt(row.gas_top_up_base_units) };
}

/** The address can pay its gas (its top-up confirmed, or none needed); the first time counts. */
export async function markGasReady(pool: pg.Pool, id: string, now: Date): Promise<void> {
  await pool.query('update evm_sweep set gas_ready_at = coalesce(gas_ready_at, $2) where id = $1', [id, now]);
}

/** Set before the sweep's transaction is first sent, with what it moves: from then on it may be on chain. */
export async function markSweepSent(pool: pg.Pool, id: string, sentBaseUnits: bigint, now: Date): Promise<void> {
  await pool.query('update evm_sweep set sent_at = coalesce(sent_at, $2), sent_base_units = coalesce(sent_base_units, $3) where id = $1', [
    id,
    now,
    sentBaseUnits.toString(),
  ]);
}

/**
 * Ends a sweep in flight (false if final). Failures other than REVERTED are decided before signing, so they apply only
 * while the sweep has no transaction stored (false otherwise). `fee`: what its transactions paid the network, whose
 * NETWORK_FEE transfer the caller posts in the same transaction.
 */
export async function finishEvmSweep(
  executor: pg.ClientBase | pg.Pool,
  id: string,
  outcome:
    | { status: 'SWEPT'; transactionHash: string; sentBaseUnits: bigint }
    | { status: 'FAILED'; reason: EvmSweepFailure; transactionHash?: string },
  now: Date,
  fee?: { transferId: string; baseUnits: bigint },
): Promise<boolean> {
  const result = await executor.query(
    `update evm_sweep set status = $2, failure_reason = $3, transaction_hash = coalesce($4, transaction_hash),
                          sent_base_units = coalesce(sent_base_units, $5), finished_at = $6,
                          network_fee_base_units = $7, fee_transfer_id = $8
      where id = $1 and status = 'IN_FLIGHT'
        and ($3::text is null or $3::text = 'REVERTED' or not exists (select 1 from evm_transaction where withdrawal_id = $1))`,
    [
      id,
      outcome.status,
      outcome.status === 'FAILED' ? outcome.reason : null,
      outcome.transactionHash?.toLowerCase() ?? null,
      outcome.status === 'SWEPT' ? outcome.sentBaseUnits.toString() : null,
      now,
      fee?.baseUnits.toString() ?? null,
      fee?.transferId ?? null,
    ],
  );
  return result.rowCount === 1;
}

export interface ListedSweep {
  id: string;
  network: string;
  currency: string;
  partnerId: string;
  from: string;
  to: string;
  /** Base units as decimal text (wei, or the token's millionths). */
  amountBaseUnits: string;
  sentBaseUnits: string | null;
  gasTopUpBaseUnits: string | null;
  /** What its transactions paid the network in wei (its own gas and its top-up's), once it ended; posted as a NETWORK_FEE. */
  networkFeeBaseUnits: string | null;
  status: EvmSweepStatus;
  failureReason: EvmSweepFailure | null;
  deposits: number;
  gasTopUpTransactionHash: string | null;
  transactionHash: string | null;
  createdAt: string;
  finishedAt: string | null;
}

/** Sweeps for operators, newest first, with their transactions (the top-up's, and the sweep's landed or latest attempt). */
export async function findEvmSweeps(
  em: EntityManager,
  filter: { status: EvmSweepStatus | undefined; partnerId: string | undefined; limit: number },
): Promise<ListedSweep[]> {
  const latestHash = (id: string) =>
    `(select a.transaction_hash from evm_transaction_attempt a where a.withdrawal_id = ${id} order by a.attempt desc limit 1)`;
  return em.execute(
    `select s.id, s.network, s.currency, s.partner_id as "partnerId", s.address as "from", s.hot_wallet as "to",
            s.amount_base_units::text as "amountBaseUnits", s.sent_base_units::text as "sentBaseUnits",
            s.gas_top_up_base_units::text as "gasTopUpBaseUnits", s.network_fee_base_units::text as "networkFeeBaseUnits",
            s.status, s.failure_reason as "failureReason",
            (select count(*)::int from crypto_deposit d where d.sweep_id = s.id) as deposits,
            ${latestHash('s.gas_top_up_transaction_id')} as "gasTopUpTransactionHash",
            coalesce(s.transaction_hash, ${latestHash('s.id')}) as "transactionHash",
            ${utcText('s.created_at')} as "createdAt", ${utcText('s.finished_at')} as "finishedAt"
       from evm_sweep s
      where (?::text is null or s.status = ?) and (?::uuid is null or s.partner_id = ?::uuid)
      order by s.created_at desc, s.id desc limit ?`,
    [filter.status ?? null, filter.status ?? null, filter.partnerId ?? null, filter.partnerId ?? null, filter.limit],
  );
}

/** Of these transaction hashes, the sweeps' gas top-ups: our own money moved within custody, never a deposit. */
export async function gasTopUpHashes(pool: pg.Pool, transactionHashes: readonly string[]): Promise<Set<string>> {
  if (transactionHashes.length === 0) return new Set();
  const { rows } = await pool.query<{ transaction_hash: string }>(
    `select a.transaction_hash from evm_transaction_attempt a
       join evm_sweep s on s.gas_top_up_transaction_id = a.withdrawal_id
      where a.transaction_hash = any($1::text[])`,
    [transactionHashes.map((hash) => hash.toLowerCase())],
  );
  return new Set(rows.map((row) => row.transaction_hash));
}
