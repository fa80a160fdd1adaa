import { TransactionNotFoundError, TransactionReceiptNotFoundError } from 'viem';
import type { Hex, TransactionReceipt } from 'viem';
import type { EvmTransactionAttempt, EvmTransactionRecord } from '../../../../db/queries/evm-transaction.queries';
import type { EvmClient, EvmNetworkRuntime } from './evm-network-runtime';

/** Sending stored transactions and asking the node about them: what broadcast and confirmation share. */

/**
 * Sends the latest attempt's stored bytes. A failed send counts as sent when the node knows one
 * of the withdrawal's attempts anyway ("already known", or mined: "nonce too low"); otherwise
 * it throws and the row stays for the retry to send again.
 */
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

export async function receiptOrNull(client: EvmClient, hash: string): Promise<TransactionReceipt | null> {
  try {
    return await client.getTransactionReceipt({ hash: hash as Hex });
  } catch (error) {
    if (error instanceof TransactionReceiptNotFoundError) return null;
    throw error;
  }
}

export async function transactionOrNull(client: EvmClient, hash: string): Promise<unknown> {
  try {
    return await client.getTransaction({ hash: hash as Hex });
  } catch (error) {
    if (error instanceof TransactionNotFoundError) return null;
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
