import type pg from 'pg';
import { inPgTransaction } from '../pg-transaction';

/** Hot wallet nonces, one signed transaction per withdrawal and its attempts; addresses and hashes in lower case. */

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

type TransactionRow = Omit<EvmTransactionRecord, 'chainId' | 'nonce' | 'amountBaseUnits' | 'attempts'> & {
  chainId: string;
  nonce: string;
  amountBaseUnits: string;
};

type AttemptRow = Omit<EvmTransactionAttempt, 'gasLimit' | 'maxFeePerGas' | 'maxPriorityFeePerGas'> & {
  gasLimit: string;
  maxFeePerGas: string;
  maxPriorityFeePerGas: string;
};

const TRANSACTION_COLUMNS = `t.withdrawal_id as "withdrawalId", t.network, t.chain_id as "chainId", t.from_address as "fromAddress",
  t.nonce, t.currency, t.destination, t.amount_base_units as "amountBaseUnits", t.created_at as "createdAt"`;

/** The withdrawal's transaction with all its attempts, if it was ever signed. */
export async function evmTransactionOfWithdrawal(
  db: pg.Pool | pg.PoolClient,
  withdrawalId: string,
): Promise<EvmTransactionRecord | undefined> {
  const result = await db.query<TransactionRow>(`select ${TRANSACTION_COLUMNS} from evm_transaction t where t.withdrawal_id = $1`, [
    withdrawalId,
  ]);
  const row = result.rows[0];
  return row && withAttempts(db, row);
}

/** The transaction one of whose attempts has this hash. */
export async function evmTransactionByHash(
  db: pg.Pool | pg.PoolClient,
  transactionHash: string,
): Promise<EvmTransactionRecord | undefined> {
  const result = await db.query<TransactionRow>(
    `select ${TRANSACTION_COLUMNS}
     from evm_transaction_attempt a join evm_transaction t on t.withdrawal_id = a.withdrawal_id
     where a.transaction_hash = $1`,
    [transactionHash.toLowerCase()],
  );
  const row = result.rows[0];
  return row && withAttempts(db, row);
}

async function withAttempts(db: pg.Pool | pg.PoolClient, row: TransactionRow): Promise<EvmTransactionRecord> {
  const attempts = await db.query<AttemptRow>(
    `select attempt, transaction_hash as "transactionHash", raw_transaction as "rawTransaction", gas_limit as "gasLimit",
            max_fee_per_gas as "maxFeePerGas", max_priority_fee_per_gas as "maxPriorityFeePerGas", signed_at as "signedAt",
            replaced_at as "replacedAt"
     from evm_transaction_attempt where withdrawal_id = $1 order by attempt`,
    [row.withdrawalId],
  );
  if (attempts.rows.length === 0) throw new Error(`evm transaction of ${row.withdrawalId} has no attempt`);
  return {
    ...row,
    chainId: Number(row.chainId),
    nonce: BigInt(row.nonce),
    amountBaseUnits: BigInt(row.amountBaseUnits),
    attempts: attempts.rows.map((attempt) => ({
      ...attempt,
      gasLimit: BigInt(attempt.gasLimit),
      maxFeePerGas: BigInt(attempt.maxFeePerGas),
      maxPriorityFeePerGas: BigInt(attempt.maxPriorityFeePerGas),
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

/** Stores a signed transaction under the nonce lockNextNonce locked, and moves the wallet's sequence past it. */
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

/** Stores a replacement after `previousAttempt`, marking that one replaced; false when another process stored it first. */
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
