import { parseUnits } from 'viem';
import type { FundedRegtestChain } from '../../../../dev/funded-regtest-chain';
import { describePayments, readUtxoPayments } from '../../../support/utxo-payments';
import type { OperationLog } from '../load';
import { isWithdrawal } from '../operations';
import { anomaly } from './anomalies';
import type { Anomaly } from './anomalies';
import type { ApiView } from './api-state';

/**
 * Bitcoin, read from btcd itself (test/support/utxo-payments.ts): the hot wallet paid only destinations of answered
 * withdrawals; every SUCCESSFUL btc withdrawal has exactly one transaction paying its destination exactly its amount, in a
 * block, the one the API shows; nothing was paid, in a block or waiting in the mempool, for one that did not succeed.
 */
export async function auditBitcoin(
  chain: FundedRegtestChain,
  operations: readonly OperationLog[],
  view: ApiView,
): Promise<{ anomalies: Anomaly[]; transactions: number; blocks: number }> {
  const { byDestination, transactions, blocks } = await readUtxoPayments('bitcoin', chain.node.rpcUrl, chain.hotWalletKey);
  const anomalies: Anomaly[] = [];
  const withdrawals = new Map(
    operations
      .filter((operation) => isWithdrawal(operation.kind) && operation.currency === 'btc' && operation.destination)
      .map((operation) => [operation.destination!, operation]),
  );
  for (const [destination, list] of byDestination) {
    const operation = withdrawals.get(destination);
    if (!operation?.operationId) {
      anomalies.push(
        anomaly(
          'phantom',
          `the btc hot wallet paid ${describePayments(list)} to ${destination}, which no answered withdrawal names`,
          operation ? { op: operation.op } : {},
        ),
      );
      continue;
    }
    const at = { op: operation.op };
    const status = view.withdrawals.get(operation.operationId)?.status;
    if (list.length > 1)
      anomalies.push(
        anomaly(
          'doubled',
          `btc withdrawal ${operation.operationId}: ${list.length} transactions pay ${destination}: ${describePayments(list)}`,
          at,
        ),
      );
    if (status !== 'SUCCESSFUL' && status !== 'IN_PROGRESS' && status !== 'IN_PROGRESS_TR_DATA')
      anomalies.push(
        anomaly(
          'phantom',
          `btc withdrawal ${operation.operationId} is ${status ?? 'unknown'} but ${describePayments(list)} paid ${destination}`,
          at,
        ),
      );
  }
  for (const operation of withdrawals.values()) {
    const details = operation.operationId ? view.withdrawals.get(operation.operationId) : undefined;
    if (details?.status !== 'SUCCESSFUL') continue;
    const at = { op: operation.op };
    const list = byDestination.get(operation.destination!) ?? [];
    const landed = list.filter((each) => each.height !== undefined);
    if (landed.length === 0) {
      anomalies.push(
        anomaly(
          'lost',
          `btc withdrawal ${operation.operationId} is SUCCESSFUL but no block has a transaction paying ${operation.destination}`,
          at,
        ),
      );
      continue;
    }
    const paid = list.reduce((sum, each) => sum + each.satoshis, 0n);
    if (paid !== parseUnits(operation.amount, 8))
      anomalies.push(
        anomaly(
          'wrong-balance',
          `btc withdrawal ${operation.operationId}: ${describePayments(list)} paid, the client asked for ${operation.amount} btc`,
          at,
        ),
      );
    if (details.transactionHash !== landed[0]!.txid)
      anomalies.push(
        anomaly(
          'wrong-state',
          `btc withdrawal ${operation.operationId} shows transaction ${details.transactionHash}, the chain has ${landed[0]!.txid}`,
          at,
        ),
      );
  }
  return { anomalies, transactions, blocks };
}
