import { TransactionNotFoundError, TransactionReceiptNotFoundError } from 'viem';
import type { Hex, TransactionReceipt } from 'viem';
import type { EvmTransactionAttempt, EvmTransactionRecord } from '../../../../db/queries/evm-transaction.queries';
import type { EvmClient, EvmNetworkRuntime } from './evm-network-runtime';

/** Sending stored transactions and asking the node about them: what broadcast and confirmation share. */

/** Sends the latest attempt's stored bytes; a failed send counts as sent when the node knows any attempt ("already known", mined). */
export async function sendLatest(runtime: EvmNetworkRuntime, record: EvmTransactionRecord): Promise<void> {
  const latest = latestAttempt(record);
  try {
    await runtime.client.sendRawTransaction({ serializedTransaction: latest.rawTransaction as Hex });
  } catch (error) {
    if (await nodeKnowsAny(runtime, record)) return;
    throw new Error(`sending transaction ${latest.transactionHash} of withdrawal ${record.withdrawalId} failed: ${shortMessage(error)}`);
  }
}

async function nodeKnowsAny(runtime: EvmNetworkRuntime, record: EvmTransactionRecord): Promise<boolean> {
  const known = await Promise.all(record.attempts.map((attempt) => transactionOrNull(runtime.client, attempt.transactionHash)));
  return known.some((transaction) => transaction !== null);
}

export function latestAttempt(record: EvmTransactionRecord): EvmTransactionAttempt {
  const latest = record.attempts.at(-1);
  if (!latest) throw new Error(`withdrawal ${record.withdrawalId} has no attempt`);
  return latest;
}

export const receiptOrNull = (client: EvmClient, hash: string): Promise<TransactionReceipt | null> =>
  nullIfNotFound(client.getTransactionReceipt({ hash: hash as Hex }), TransactionReceiptNotFoundError);

export const transactionOrNull = (client: EvmClient, hash: string): Promise<unknown> =>
  nullIfNotFound(client.getTransaction({ hash: hash as Hex }), TransactionNotFoundError);

async function nullIfNotFound<T>(read: Promise<T>, notFound: abstract new (...args: never[]) => Error): Promise<T | null> {
  try {
    return await read;
  } catch (error) {
    if (error instanceof notFound) return null;
    throw error;
  }
}

/** viem's one-line summary, without the request body (which holds only public bytes, but is long). */
function shortMessage(error: unknown): string {
  if (error && typeof error === 'object' && 'shortMessage' in error && typeof error.shortMessage === 'string') {
    // viem's details carry the node's own reason ("insufficient funds", "nonce too low").
    const details = 'details' in error && typeof error.details === 'string' ? ` (${error.details})` : '';
    return `${error.shortMessage}${details}`;
  }
  return error instanceof Error ? error.message : String(error);
}
