import type pg from 'pg';

/** What a real chain adapter signed, whatever its family: a worker that does not send on that network must not simulate it. */

/** Whether a real adapter signed a transaction for the withdrawal (EVM or UTXO). */
export async function withdrawalSignedOnChain(pool: pg.Pool, withdrawalId: string): Promise<boolean> {
  const { rows } = await pool.query<{ signed: boolean }>(
    `select exists (select 1 from evm_transaction where withdrawal_id = $1)
         or exists (select 1 from utxo_transaction where withdrawal_id = $1) as signed`,
    [withdrawalId],
  );
  return rows[0]?.signed === true;
}

/** Whether a real adapter signed a transaction with this hash (EVM hashes in lower case, UTXO txids as hex). */
export async function transactionSignedOnChain(pool: pg.Pool, transactionHash: string): Promise<boolean> {
  const { rows } = await pool.query<{ signed: boolean }>(
    `select exists (select 1 from evm_transaction_attempt where transaction_hash = lower($1))
         or exists (select 1 from utxo_transaction_attempt where txid = lower($1)) as signed`,
    [transactionHash],
  );
  return rows[0]?.signed === true;
}
