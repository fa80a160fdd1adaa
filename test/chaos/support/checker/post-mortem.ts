import { Client, Connection } from '@temporalio/client';
import pg from 'pg';
import type { Hex } from 'viem';
import { cryptoWithdrawalContract, sepaTransferContract } from '../../../../contracts';
import { parsePayloadKeys } from '../../../../core/payload-codec';
import { temporalDataConverter } from '../../../../core/temporal-connection';
import type { ChaosStack } from '../chaos-stack';
import { chainClient } from '../chain-control';
import type { History } from '../history';
import type { OperationLog } from '../load';
import { isWithdrawal } from '../operations';
import { UtxoRpc } from '../../../../activities/adapters/chain/utxo/utxo-rpc';

/**
 * Not a check: what the service's own records say about operations that did not end well, written
 * to the history while the stack still runs (the chain node keeps its state in memory only), so a
 * failed run can be understood afterwards. For each: its row (status, stage), its transactions
 * and whether the node knows them, and its workflow's pending activities with their last failure.
 * Returns a few lines for the run's summary (CI shows only what is printed): the pending activities' last failures, counted,
 * and how far the service has read bitcoin's blocks.
 */
export async function postMortem(stack: ChaosStack, history: History, operations: readonly OperationLog[]): Promise<string[]> {
  if (operations.length === 0) return [];
  const failures = new Map<string, number>();
  const pool = new pg.Pool({ connectionString: stack.fault.databaseUrl, max: 1 });
  const chain = chainClient(stack.evm);
  const connection = await Connection.connect({ address: stack.fault.temporalAddress });
  // describe() decodes the memo: the run's payload key.
  const client = new Client({
    connection,
    namespace: 'default',
    dataConverter: temporalDataConverter({ payloadKeys: parsePayloadKeys(stack.fault.payloadKeys) }),
  });
  try {
    const [latest, pending] = await Promise.all([
      chain.getTransactionCount({ address: stack.evm.hotWalletAddress, blockTag: 'latest' }),
      chain.getTransactionCount({ address: stack.evm.hotWalletAddress, blockTag: 'pending' }),
    ]);
    const nonce = await pool.query('select next_nonce::text from evm_wallet_nonce');
    history.write('post-mortem-chain', { hotWalletNonceLatest: latest, hotWalletNoncePending: pending, storedNextNonce: nonce.rows });
    const bitcoinHead = await new UtxoRpc(stack.bitcoin.node.rpcUrl).blockCount().catch((error: unknown) => String(error));
    const bitcoinRead = await pool.query<{ height: string | null }>(
      `select max(height)::text as height from utxo_scanned_block where network = 'bitcoin'`,
    );
    const summary = [`post-mortem: bitcoin's blocks read up to ${bitcoinRead.rows[0]?.height ?? 'none'} of ${bitcoinHead}`];
    for (const operation of operations.slice(0, 30)) {
      const id = operation.operationId!;
      const table = isWithdrawal(operation.kind) ? 'crypto_withdrawal' : operation.kind === 'sepa-transfer' ? 'sepa_transfer' : 'exchange';
      const row = (await pool.query(`select * from ${table} where id = $1`, [id])).rows[0] as Record<string, unknown> | undefined;
      const transactions = isWithdrawal(operation.kind)
        ? await pool.query<{ nonce: string; attempt: number; transaction_hash: string; signed_at: Date; replaced_at: Date | null }>(
            `select t.nonce::text, a.attempt, a.transaction_hash, a.signed_at, a.replaced_at
               from evm_transaction t join evm_transaction_attempt a using (withdrawal_id) where t.withdrawal_id = $1 order by a.attempt`,
            [id],
          )
        : { rows: [] };
      const onChain = await Promise.all(
        transactions.rows.map(async (attempt) => ({
          ...attempt,
          known: (await chain.getTransaction({ hash: attempt.transaction_hash as Hex }).catch(() => null)) !== null,
          receipt: (await chain.getTransactionReceipt({ hash: attempt.transaction_hash as Hex }).catch(() => null))?.status ?? null,
        })),
      );
      const workflowId = isWithdrawal(operation.kind)
        ? cryptoWithdrawalContract.workflowId(id)
        : operation.kind === 'sepa-transfer'
          ? sepaTransferContract.workflowId(id)
          : `exchange-${id}`;
      const workflow = await client.workflow
        .getHandle(workflowId)
        .describe()
        .then((description) => ({
          status: description.status.name,
          pendingActivities: description.raw.pendingActivities?.map((activity) => ({
            type: activity.activityType?.name,
            state: activity.state,
            attempt: activity.attempt,
            lastFailure: activity.lastFailure?.message?.slice(0, 300),
          })),
        }))
        .catch((error: unknown) => ({ error: String(error) }));
      const pendingActivities = 'pendingActivities' in workflow ? (workflow.pendingActivities ?? []) : [];
      for (const activity of pendingActivities.length > 0 ? pendingActivities : [undefined]) {
        const key = activity
          ? `${activity.type}: ${activity.lastFailure?.slice(0, 200) ?? 'no failure yet'}`
          : `${'status' in workflow ? workflow.status : 'not described'}, no pending activity`;
        failures.set(key, (failures.get(key) ?? 0) + 1);
      }
      history.write('post-mortem', {
        op: operation.op,
        operationId: id,
        row: row ? { status: row.status, stage: row.stage, failure_reason: row.failure_reason } : null,
        transactions: onChain,
        workflow,
      });
    }
    const counted = [...failures].sort((a, b) => b[1] - a[1]).slice(0, 5);
    return [...summary, ...counted.map(([key, count]) => `post-mortem: ${count} of the first 30 troubled: ${key}`)];
  } finally {
    await connection.close();
    await pool.end();
  }
}
