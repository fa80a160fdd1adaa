import type pg from 'pg';
import { inPgTransaction } from '../pg-transaction';

/**
 * The EVM adapter's tables: hot wallet nonces, one signed
 * transaction per withdrawal and its attempts (the first and each fee-raising replacement).
 * Addresses and hashes are stored in lower case.
 */

export interface EvmTransactionRecord {
  withdrawalId: string;
  network: string;
  chainId: number;
  fromAddress: string;
  nonce: bigint;
  currency: string;
  destination: string;
  amountBaseUnits: bigint;
  createdAt: Date;
  /** Oldest first; never empty. */
  attempts: EvmTransactionAttempt[];
}

export interface EvmTransactionAttempt {
  attempt: number;
  transactionHash: string;
  rawTransaction: string;
  gasLimit: bigint;
  maxFeePerGas: bigint;
  maxPriorityFeePerGas: bigint;
  signedAt: Date;
  replacedAt: Date | null;
}

export type NewEvmTransaction = Omit<EvmTransactionRecord, 'attempts' | 'nonce'>;
export type NewEvmAttempt = Omit<EvmTransactionAttempt, 'replacedAt'>;

interface TransactionRow {
  withdrawal_id: string;
  network: string;
  chain_id: string;
  from_address: string;
  nonce: string;
  currency: string;
  destination: string;
  amount_base_units: string;
  created_at: Date;
}

interface AttemptRow {
  attempt: number;
  transaction_hash: string;
  raw_transaction: string;
  gas_limit: string;
  max_fee_per_gas: string;
  max_priority_fee_per_gas: string;
  signed_at: Date;
  replaced_at: Date | null;
}

/** The withdrawal's transaction with all its attempts, if it was ever signed. */
export async function evmTransactionOfWithdrawal(
  db: pg.Pool | pg.PoolClient,
  withdrawalId: string,
): Promise<EvmTransactionRecord | undefined> {
  const result = await db.query<TransactionRow>(
    `select withdrawal_id, network, chain_id, from_address, nonce, currency, destination, amount_base_units, created_at
     from evm_transaction where withdrawal_id = $1`,
    [withdrawalId],
  );
  const row = result.rows[0];
  return row && withAttempts(db, row);
}

/** The transaction one of whose attempts has this hash. */
export async function evmTransactionByHash(
  db: pg.Pool | pg.PoolClient,
  transactionHash: string,
): Promise<EvmTransactionRecord | undefined> {
  const result = await db.query<TransactionRow>(
    `select t.withdrawal_id, t.network, t.chain_id, t.from_address, t.nonce, t.currency, t.destination, t.amount_base_units, t.created_at
     from evm_transaction_attempt a join evm_transaction t on t.withdrawal_id = a.withdrawal_id
     where a.transaction_hash = $1`,
    [transactionHash.toLowerCase()],
  );
  const row = result.rows[0];
  return row && withAttempts(db, row);
}

async function withAttempts(db: pg.Pool | pg.PoolClient, row: TransactionRow): Promise<EvmTransactionRecord> {
  const attempts = await db.query<AttemptRow>(
    `select attempt, transaction_hash, raw_transaction, gas_limit, max_fee_per_gas, max_priority_fee_per_gas, signed_at, replaced_at
     from evm_transaction_attempt where withdrawal_id = $1 order by attempt`,
    [row.withdrawal_id],
  );
  if (attempts.rows.length === 0) throw new Error(`evm transaction of ${row.withdrawal_id} has no attempt`);
  return {
    withdrawalId: row.withdrawal_id,
    network: row.network,
    chainId: Number(row.chain_id),
    fromAddress: row.from_address,
    nonce: BigInt(row.nonce),
    currency: row.currency,
    destination: row.destination,
    amountBaseUnits: BigInt(row.amount_base_units),
    createdAt: row.created_at,
    attempts: attempts.rows.map((attempt) => ({
      attempt: attempt.attempt,
      transactionHash: attempt.transaction_hash,
      rawTransaction: attempt.raw_transaction,
      gasLimit: BigInt(attempt.gas_limit),
      maxFeePerGas: BigInt(attempt.max_fee_per_gas),
      maxPriorityFeePerGas: BigInt(attempt.max_priority_fee_per_gas),
      signedAt: attempt.signed_at,
      replacedAt: attempt.replaced_at,
    })),
  };
}

export async function walletNonceExists(pool: pg.Pool, network: string, address: string): Promise<boolean> {
  const result = await pool.query('select 1 from evm_wallet_nonce where network = $1 and address = $2', [network, address.toLowerCase()]);
  return result.rowCount === 1;
}

/** Starts a wallet's nonce sequence (from the chain's count, on first use); a sequence already started is kept. */
export async function startWalletNonce(pool: pg.Pool, network: string, address: string, nextNonce: bigint): Promise<void> {
  await pool.query(
    `insert into evm_wallet_nonce (network, address, next_nonce) values ($1, $2, $3)
     on conflict (network, address) do nothing`,
    [network, address.toLowerCase(), nextNonce.toString()],
  );
}

/** The wallet's next nonce, its row locked until the transaction ends: one signer per wallet at a time. */
export async function lockNextNonce(client: pg.PoolClient, network: string, address: string): Promise<bigint> {
  const result = await client.query<{ next_nonce: string }>(
    'select next_nonce from evm_wallet_nonce where network = $1 and address = $2 for update',
    [network, address.toLowerCase()],
  );
  const row = result.rows[0];
  if (!row) throw new Error(`no nonce sequence for ${address} on ${network}`);
  return BigInt(row.next_nonce);
}

/**
 * Stores a signed transaction under the nonce locked by lockNextNonce and moves the wallet's
 * sequence past it, in the caller's transaction.
 */
export async function insertEvmTransaction(
  client: pg.PoolClient,
  transaction: NewEvmTransaction & { nonce: bigint },
  attempt: NewEvmAttempt,
): Promise<void> {
  const advanced = await client.query(
    'update evm_wallet_nonce set next_nonce = next_nonce + 1 where network = $1 and address = $2 and next_nonce = $3',
    [transaction.network, transaction.fromAddress.toLowerCase(), transaction.nonce.toString()],
  );
  if (advanced.rowCount !== 1) throw new Error(`nonce ${transaction.nonce} is not the next one of ${transaction.fromAddress}`);
  await client.query(
    `insert into evm_transaction
       (withdrawal_id, network, chain_id, from_address, nonce, currency, destination, amount_base_units, created_at)
     values ($1, $2, $3, $4, $5, $6, $7, $8, $9)`,
    [
      transaction.withdrawalId,
      transaction.network,
      transaction.chainId,
      transaction.fromAddress.toLowerCase(),
      transaction.nonce.toString(),
      transaction.currency,
      transaction.destination.toLowerCase(),
      transaction.amountBaseUnits.toString(),
      transaction.createdAt,
    ],
  );
  await insertAttempt(client, transaction.withdrawalId, attempt);
}

/**
 * Stores a replacement as the attempt after `previousAttempt` and marks that one replaced, in one
 * transaction. False when another process stored that attempt first (then use theirs).
 */
export async function insertReplacementAttempt(
  pool: pg.Pool,
  withdrawalId: string,
  previousAttempt: number,
  replacement: NewEvmAttempt,
): Promise<boolean> {
  if (replacement.attempt !== previousAttempt + 1) throw new Error('a replacement is the attempt right after the one it replaces');
  return inPgTransaction(pool, async (client) => {
    const marked = await client.query(
      `update evm_transaction_attempt set replaced_at = $3
       where withdrawal_id = $1 and attempt = $2 and replaced_at is null`,
      [withdrawalId, previousAttempt, replacement.signedAt],
    );
    // Already replaced: another process signed the next attempt (its row lock made us wait).
    if (marked.rowCount !== 1) return false;
    await insertAttempt(client, withdrawalId, replacement);
    return true;
  });
}

async function insertAttempt(client: pg.PoolClient, withdrawalId: string, attempt: NewEvmAttempt): Promise<void> {
  await client.query(
    `insert into evm_transaction_attempt
       (withdrawal_id, attempt, transaction_hash, raw_transaction, gas_limit, max_fee_per_gas, max_priority_fee_per_gas, signed_at)
     values ($1, $2, $3, $4, $5, $6, $7, $8)`,
    [
      withdrawalId,
      attempt.attempt,
      attempt.transactionHash.toLowerCase(),
      attempt.rawTransaction.toLowerCase(),
      attempt.gasLimit.toString(),
      attempt.maxFeePerGas.toString(),
      attempt.maxPriorityFeePerGas.toString(),
      attempt.signedAt,
    ],
  );
}
