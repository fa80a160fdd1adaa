import type pg from 'pg';

/** The UTXO hot wallets: their scripts, coins, signed transactions and how far their blocks were read (hex in lower case). */

type Queryable = pg.Pool | pg.ClientBase;

export interface UtxoCoinRow {
  txid: string;
  vout: number;
  value: bigint;
  chain: 0 | 1;
  index: number;
}

export interface UtxoAttempt {
  attempt: number;
  txid: string;
  rawTransaction: string;
  fee: bigint;
  feeRate: number;
  signedAt: Date;
  replacedAt: Date | null;
}

export interface UtxoTransactionRecord {
  withdrawalId: string;
  network: string;
  destination: string;
  amount: bigint;
  createdAt: Date;
  conflictFoundAt: Date | null;
  /** Oldest first; never empty. */
  attempts: UtxoAttempt[];
}

/** The wallet's row, made at first use with its receiving script; a different account key is refused (another wallet's coins). */
export async function ensureUtxoWallet(
  db: Queryable,
  network: string,
  accountPublicKey: string,
  receivingScriptHex: string,
): Promise<void> {
  await db.query(`insert into utxo_wallet (network, account_public_key) values ($1, $2) on conflict (network) do nothing`, [
    network,
    accountPublicKey,
  ]);
  const { rows } = await db.query<{ key: string }>(`select account_public_key as key from utxo_wallet where network = $1`, [network]);
  if (rows[0]?.key !== accountPublicKey) {
    throw new Error(
      `the ${network} hot wallet in the database belongs to another key (${rows[0]?.key.slice(0, 16)}…): this worker's key would not spend its coins`,
    );
  }
  await db.query(
    `insert into utxo_wallet_script (network, script_hex, key_chain, key_index) values ($1, $2, 0, 0) on conflict do nothing`,
    [network, receivingScriptHex],
  );
}

/** Locks the wallet for signing (two signers never take one coin) and takes the next change index. */
export async function lockUtxoWalletForSigning(client: pg.ClientBase, network: string): Promise<{ changeIndex: number }> {
  const { rows } = await client.query<{ next: number }>(
    `update utxo_wallet set next_change_index = next_change_index + 1 where network = $1 returning next_change_index - 1 as next`,
    [network],
  );
  if (!rows[0]) throw new Error(`the ${network} hot wallet has no row yet`);
  return { changeIndex: rows[0].next };
}

/**
 * Coins no withdrawal took, largest first, at most `limit`: the wallet's own (change, sweeps: key chain 1) once in a block,
 * what others paid its receiving address once `confirmations` deep below the highest block read (a payer's reorganisation
 * or double spend cannot take back what a withdrawal already spent).
 */
export async function findSpendableCoins(
  client: pg.ClientBase,
  network: string,
  limit: number,
  confirmations: number,
): Promise<UtxoCoinRow[]> {
  const { rows } = await client.query<{ txid: string; vout: number; value: string; chain: number; index: number }>(
    `select c.txid, c.vout, c.value_base_units::text as value, s.key_chain as chain, s.key_index as index
       from utxo_coin c join utxo_wallet_script s using (network, script_hex)
      where c.network = $1 and c.reserved_for is null and c.block_hash is not null
        and (s.key_chain = 1 or c.block_height <= (select max(height) from utxo_scanned_block where network = $1) - ($3 - 1))
      order by c.value_base_units desc, c.txid, c.vout
      limit $2`,
    [network, limit, confirmations],
  );
  return rows.map((row) => ({ txid: row.txid, vout: row.vout, value: BigInt(row.value), chain: row.chain as 0 | 1, index: row.index }));
}

export interface NewUtxoTransaction {
  withdrawalId: string;
  network: string;
  destination: string;
  amount: bigint;
  createdAt: Date;
  attempt: Omit<UtxoAttempt, 'replacedAt' | 'attempt'>;
  inputs: ReadonlyArray<{ txid: string; vout: number }>;
  /** The change key's script, recorded so the scanner knows the change when it is mined. */
  changeScript: { hex: string; index: number } | null;
}

/** In the signer's transaction: the withdrawal's record, its first attempt, the inputs taken (each by one withdrawal only). */
export async function storeSignedUtxoTransaction(client: pg.ClientBase, record: NewUtxoTransaction): Promise<void> {
  await client.query(
    `insert into utxo_transaction (withdrawal_id, network, destination, amount_base_units, created_at) values ($1, $2, $3, $4, $5)`,
    [record.withdrawalId, record.network, record.destination, record.amount.toString(), record.createdAt],
  );
  await insertAttempt(client, record.withdrawalId, 1, record.attempt);
  if (record.changeScript) await recordChangeScript(client, record.network, record.changeScript);
  const taken = await client.query(
    `update utxo_coin c set reserved_for = $2
       from unnest($3::text[], $4::int[]) as input(txid, vout)
      where c.network = $1 and c.txid = input.txid and c.vout = input.vout and c.reserved_for is null`,
    [record.network, record.withdrawalId, record.inputs.map((input) => input.txid), record.inputs.map((input) => input.vout)],
  );
  if (taken.rowCount !== record.inputs.length) throw new Error(`a coin of withdrawal ${record.withdrawalId} was taken by another`);
}

/** A change key's script (1/index), recorded when a transaction paying it is signed, so the scanner knows the coin. */
export async function recordChangeScript(client: pg.ClientBase, network: string, script: { hex: string; index: number }): Promise<void> {
  await client.query(`insert into utxo_wallet_script (network, script_hex, key_chain, key_index) values ($1, $2, 1, $3)`, [
    network,
    script.hex,
    script.index,
  ]);
}

/** A fee-raising replacement, stored (and the previous attempt marked replaced) before it is sent. */
export async function storeUtxoReplacement(
  db: Queryable,
  withdrawalId: string,
  attempt: number,
  signed: Omit<UtxoAttempt, 'replacedAt' | 'attempt'>,
): Promise<void> {
  await db.query(`update utxo_transaction_attempt set replaced_at = $3 where withdrawal_id = $1 and attempt = $2 and replaced_at is null`, [
    withdrawalId,
    attempt - 1,
    signed.signedAt,
  ]);
  await insertAttempt(db, withdrawalId, attempt, signed);
}

async function insertAttempt(db: Queryable, withdrawalId: string, attempt: number, signed: Omit<UtxoAttempt, 'replacedAt' | 'attempt'>) {
  await db.query(
    `insert into utxo_transaction_attempt (withdrawal_id, attempt, txid, raw_transaction, fee_base_units, fee_rate, signed_at)
     values ($1, $2, $3, $4, $5, $6, $7)`,
    [withdrawalId, attempt, signed.txid, signed.rawTransaction, signed.fee.toString(), signed.feeRate.toFixed(3), signed.signedAt],
  );
}

/** Open withdrawals whose input a transaction that is none of their own spent: they stay pending until an operator decides. */
export async function findUtxoInputConflicts(
  db: Queryable,
): Promise<Array<{ withdrawalId: string; network: string; conflict: string | null; conflictFoundAt: string }>> {
  const { rows } = await db.query<{ withdrawalId: string; network: string; conflict: string | null; conflictFoundAt: string }>(
    `select t.withdrawal_id as "withdrawalId", t.network, t.conflict, t.conflict_found_at::text as "conflictFoundAt"
       from utxo_transaction t join crypto_withdrawal w on w.id = t.withdrawal_id
      where t.conflict_found_at is not null and w.status not in ('SUCCESSFUL', 'UNSUCCESSFUL')
      order by t.conflict_found_at limit 1000`,
  );
  return rows;
}

/** Found once, kept: an input spent by a transaction none of the withdrawal's attempts is. */
export async function recordUtxoConflict(db: Queryable, withdrawalId: string, conflict: string, now: Date): Promise<void> {
  await db.query(
    `update utxo_transaction set conflict_found_at = $3, conflict = $2 where withdrawal_id = $1 and conflict_found_at is null`,
    [withdrawalId, conflict.slice(0, 500), now],
  );
}

const RECORD = `select t.withdrawal_id as "withdrawalId", t.network, t.destination, t.amount_base_units::text as amount,
       t.created_at as "createdAt", t.conflict_found_at as "conflictFoundAt",
       json_agg(json_build_object('attempt', a.attempt, 'txid', a.txid, 'rawTransaction', a.raw_transaction,
         'fee', a.fee_base_units::text, 'feeRate', a.fee_rate, 'signedAt', a.signed_at, 'replacedAt', a.replaced_at) order by a.attempt) as attempts
  from utxo_transaction t join utxo_transaction_attempt a using (withdrawal_id)`;

type RecordRow = Omit<UtxoTransactionRecord, 'amount' | 'attempts'> & {
  amount: string;
  attempts: Array<{
    attempt: number;
    txid: string;
    rawTransaction: string;
    fee: string;
    feeRate: number;
    signedAt: string;
    replacedAt: string | null;
  }>;
};

function recordOf(row: RecordRow | undefined): UtxoTransactionRecord | undefined {
  if (!row) return undefined;
  return {
    ...row,
    amount: BigInt(row.amount),
    attempts: row.attempts.map((attempt) => ({
      ...attempt,
      fee: BigInt(attempt.fee),
      feeRate: Number(attempt.feeRate),
      signedAt: new Date(attempt.signedAt),
      replacedAt: attempt.replacedAt === null ? null : new Date(attempt.replacedAt),
    })),
  };
}

export async function utxoTransactionOfWithdrawal(db: Queryable, withdrawalId: string): Promise<UtxoTransactionRecord | undefined> {
  const { rows } = await db.query<RecordRow>(`${RECORD} where t.withdrawal_id = $1 group by t.withdrawal_id`, [withdrawalId]);
  return recordOf(rows[0]);
}

/** By any attempt's txid. */
export async function utxoTransactionByTxid(db: Queryable, txid: string): Promise<UtxoTransactionRecord | undefined> {
  const { rows } = await db.query<RecordRow>(
    `${RECORD} where t.withdrawal_id = (select withdrawal_id from utxo_transaction_attempt where txid = $1) group by t.withdrawal_id`,
    [txid],
  );
  return recordOf(rows[0]);
}

/** The highest block read and its hash, or undefined before the first. */
export async function lastScannedUtxoBlock(db: Queryable, network: string): Promise<{ height: number; hash: string } | undefined> {
  const { rows } = await db.query<{ height: number; hash: string }>(
    `select height, block_hash as hash from utxo_scanned_block where network = $1 order by height desc limit 1`,
    [network],
  );
  return rows[0];
}

export async function scannedUtxoBlockHash(db: Queryable, network: string, height: number): Promise<string | undefined> {
  const { rows } = await db.query<{ hash: string }>(
    `select block_hash as hash from utxo_scanned_block where network = $1 and height = $2`,
    [network, height],
  );
  return rows[0]?.hash;
}

/** Which of `scripts` are the wallet's. */
export async function walletScriptsAmong(db: Queryable, network: string, scripts: readonly string[]): Promise<Set<string>> {
  if (scripts.length === 0) return new Set();
  const { rows } = await db.query<{ script: string }>(
    `select script_hex as script from utxo_wallet_script where network = $1 and script_hex = any($2::text[])`,
    [network, [...new Set(scripts)]],
  );
  return new Set(rows.map((row) => row.script));
}

export interface FoundCoin {
  txid: string;
  vout: number;
  value: bigint;
  scriptHex: string;
}

/**
 * One block read, in the scanner's transaction: the wallet's coins in it (seen again after a reorganisation: their new
 * block), and the block's hash; the hashes kept are the latest `keep`.
 */
export async function recordScannedUtxoBlock(
  client: pg.ClientBase,
  network: string,
  block: { height: number; hash: string },
  coins: readonly FoundCoin[],
  now: Date,
  keep: number,
): Promise<void> {
  for (const coin of coins) {
    await client.query(
      `insert into utxo_coin (network, txid, vout, value_base_units, script_hex, block_hash, block_height, found_at)
       values ($1, $2, $3, $4, $5, $6, $7, $8)
       on conflict (network, txid, vout) do update set block_hash = excluded.block_hash, block_height = excluded.block_height`,
      [network, coin.txid, coin.vout, coin.value.toString(), coin.scriptHex, block.hash, block.height, now],
    );
  }
  await client.query(`insert into utxo_scanned_block (network, height, block_hash) values ($1, $2, $3)`, [
    network,
    block.height,
    block.hash,
  ]);
  await client.query(`delete from utxo_scanned_block where network = $1 and height <= $2`, [network, block.height - keep]);
}

/** A reorganisation: blocks above `height` are forgotten, and their coins unconfirmed until they are seen in a block again. */
export async function rewindUtxoBlocks(client: pg.ClientBase, network: string, height: number): Promise<number> {
  await client.query(`update utxo_coin set block_hash = null, block_height = null where network = $1 and block_height > $2`, [
    network,
    height,
  ]);
  const { rowCount } = await client.query(`delete from utxo_scanned_block where network = $1 and height > $2`, [network, height]);
  return rowCount ?? 0;
}
