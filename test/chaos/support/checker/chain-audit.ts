import { decodeFunctionData, erc20Abi, parseEther, parseUnits } from 'viem';
import type { Address, Hex } from 'viem';
import type { RunningEvmNode } from '../../../../dev/evm-node';
import { chainClient } from '../chain-control';
import type { OperationLog } from '../load';
import { isWithdrawal } from '../operations';
import { anomaly } from './anomalies';
import type { Anomaly } from './anomalies';
import type { ApiView } from './api-state';

/**
 * Ethereum, read directly from the node (not through a worker's proxy, not from the service's
 * tables): every transaction the hot wallet ever sent in the chain as it stands, and what each
 * destination holds. Every SUCCESSFUL withdrawal has exactly one successful transaction to its
 * destination with exactly its amount (the API's transactionHash being that one), and the
 * destination holds exactly that; no other transaction left the hot wallet.
 */

interface Sent {
  hash: Hex;
  block: bigint;
  currency: 'eth' | 'usdc';
  /** Base units: wei, or USDC's 6-decimal units. */
  units: bigint;
  succeeded: boolean;
}

const CONCURRENCY = 8;

export async function auditChain(
  node: RunningEvmNode,
  operations: readonly OperationLog[],
  view: ApiView,
): Promise<{ anomalies: Anomaly[]; transactions: number; blocks: number }> {
  const client = chainClient(node);
  const hotWallet = node.hotWalletAddress.toLowerCase();
  const usdc = node.usdcAddress.toLowerCase();
  const head = await client.getBlockNumber();
  const sent = new Map<string, Sent[]>();
  let transactions = 0;
  for (let start = 0n; start <= head; start += BigInt(CONCURRENCY)) {
    const numbers = Array.from({ length: CONCURRENCY }, (_, index) => start + BigInt(index)).filter((number) => number <= head);
    const blocks = await Promise.all(numbers.map((blockNumber) => client.getBlock({ blockNumber, includeTransactions: true })));
    for (const block of blocks) {
      for (const transaction of block.transactions) {
        if (transaction.from.toLowerCase() !== hotWallet || !transaction.to) continue;
        transactions += 1;
        const receipt = await client.getTransactionReceipt({ hash: transaction.hash });
        const succeeded = receipt.status === 'success';
        let destination: string;
        let entry: Omit<Sent, 'succeeded'>;
        if (transaction.to.toLowerCase() === usdc) {
          const call = decodeFunctionData({ abi: erc20Abi, data: transaction.input });
          if (call.functionName !== 'transfer')
            throw new Error(`the hot wallet called ${call.functionName} on the token (${transaction.hash})`);
          const [to, value] = call.args;
          destination = to.toLowerCase();
          entry = { hash: transaction.hash, block: block.number, currency: 'usdc', units: value };
        } else {
          destination = transaction.to.toLowerCase();
          entry = { hash: transaction.hash, block: block.number, currency: 'eth', units: transaction.value };
        }
        sent.set(destination, [...(sent.get(destination) ?? []), { ...entry, succeeded }]);
      }
    }
  }

  const anomalies: Anomaly[] = [];
  const withdrawals = new Map(
    operations
      .filter((operation) => isWithdrawal(operation.kind) && operation.currency !== 'btc' && operation.destination)
      .map((operation) => [operation.destination!.toLowerCase(), operation]),
  );
  for (const [destination, list] of sent) {
    const operation = withdrawals.get(destination);
    const status = operation?.operationId ? view.withdrawals.get(operation.operationId)?.status : undefined;
    const landed = list.filter((each) => each.succeeded);
    if (!operation?.operationId) {
      anomalies.push(
        anomaly(
          'phantom',
          `the hot wallet sent ${describe(list)} to ${destination}, which no answered withdrawal names`,
          operation ? { op: operation.op } : {},
        ),
      );
      continue;
    }
    const at = { op: operation.op };
    if (landed.length > 1)
      anomalies.push(
        anomaly(
          'doubled',
          `withdrawal ${operation.operationId}: ${landed.length} transactions landed to ${destination}: ${describe(landed)}`,
          at,
        ),
      );
    // Still in progress is "stuck" (checked with the final states); money that left for a failed or unknown withdrawal is a phantom.
    if (status !== 'SUCCESSFUL' && status !== 'IN_PROGRESS' && status !== 'IN_PROGRESS_TR_DATA' && landed.length > 0) {
      anomalies.push(
        anomaly(
          'phantom',
          `withdrawal ${operation.operationId} is ${status ?? 'unknown'} but ${describe(landed)} left the hot wallet to ${destination}`,
          at,
        ),
      );
    }
    const reverted = list.filter((each) => !each.succeeded);
    if (reverted.length > 0 && status === 'SUCCESSFUL')
      anomalies.push(
        anomaly('wrong-state', `withdrawal ${operation.operationId} is SUCCESSFUL with a reverted transaction ${describe(reverted)}`, at),
      );
  }

  for (const operation of operations) {
    if (!isWithdrawal(operation.kind) || operation.currency === 'btc' || !operation.operationId) continue;
    const details = view.withdrawals.get(operation.operationId);
    if (details?.status !== 'SUCCESSFUL') continue;
    const at = { op: operation.op };
    const destination = operation.destination!.toLowerCase();
    const landed = (sent.get(destination) ?? []).filter((each) => each.succeeded);
    const units = operation.currency === 'eth' ? parseEther(operation.amount) : parseUnits(operation.amount, 6);
    if (landed.length === 0) {
      anomalies.push(
        anomaly('lost', `withdrawal ${operation.operationId} is SUCCESSFUL but no transaction to ${destination} is on chain`, at),
      );
      continue;
    }
    const [first] = landed;
    if (first!.currency !== operation.currency || first!.units !== units) {
      anomalies.push(
        anomaly(
          'wrong-balance',
          `withdrawal ${operation.operationId}: ${describe([first!])} on chain, the client asked for ${operation.amount} ${operation.currency}`,
          at,
        ),
      );
    }
    if (details.transactionHash?.toLowerCase() !== first!.hash.toLowerCase()) {
      anomalies.push(
        anomaly(
          'wrong-state',
          `withdrawal ${operation.operationId} shows transaction ${details.transactionHash}, the chain has ${first!.hash}`,
          at,
        ),
      );
    }
    const holds =
      operation.currency === 'eth'
        ? await client.getBalance({ address: destination as Address })
        : await client.readContract({
            address: node.usdcAddress,
            abi: erc20Abi,
            functionName: 'balanceOf',
            args: [destination as Address],
          });
    if (holds !== units)
      anomalies.push(
        anomaly(
          'wrong-balance',
          `${destination} holds ${holds} base units of ${operation.currency}, withdrawal ${operation.operationId} sent ${units}`,
          at,
        ),
      );
  }
  return { anomalies, transactions, blocks: Number(head) + 1 };
}

function describe(list: readonly Sent[]): string {
  return list
    .map((each) => `${each.hash} (${each.units} ${each.currency} base units, block ${each.block}${each.succeeded ? '' : ', reverted'})`)
    .join(', ');
}
