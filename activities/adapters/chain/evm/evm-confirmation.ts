import { parseTransaction } from 'viem';
import type { Hex, TransactionReceipt, TransactionSerializableEIP1559 } from 'viem';
import { evmTransactionOfWithdrawal, insertReplacementAttempt } from '../../../../db/queries/evm-transaction.queries';
import type { EvmTransactionAttempt, EvmTransactionRecord } from '../../../../db/queries/evm-transaction.queries';
import type { ConfirmationState } from '../chain-adapter';
import { replacementFees } from './evm-fee-policy';
import type { EvmAdapterDependencies, EvmNetworkRuntime } from './evm-network-runtime';
import { latestAttempt, receiptOrNull, sendLatest, transactionOrNull } from './evm-sending';
import { signAttempt } from './evm-signing';

/** Following a withdrawal's transaction until it is deep enough: forgotten ones sent again, stuck ones replaced (EvmChainAdapter). */

/** Where the withdrawal's transaction stands; while none of its attempts landed, it is kept pending (sent again, or replaced). */
export async function confirmationStateOf(
  dependencies: EvmAdapterDependencies,
  runtime: EvmNetworkRuntime,
  record: EvmTransactionRecord,
): Promise<ConfirmationState> {
  const landed = await landedAttempt(runtime, record);
  if (landed) {
    const head = await runtime.client.getBlockNumber({ cacheTime: 0 });
    const depth = head - landed.receipt.blockNumber + 1n;
    if (depth < runtime.requiredConfirmations) return 'PENDING';
    // The receipt and the head may come from two backends behind one URL: the receipt's block must be the chain's now.
    const block = await runtime.client.getBlock({ blockNumber: landed.receipt.blockNumber });
    if (block.hash !== landed.receipt.blockHash) return 'PENDING';
    if (landed.receipt.status === 'success') return 'CONFIRMED';
    // FAILED releases the funds: only an explicit revert (0x0) says so; anything unreadable is asked again.
    if (landed.receipt.status === 'reverted') return 'FAILED';
    throw new Error(`transaction ${landed.attempt.transactionHash} has a receipt without a readable status`);
  }
  await keepPending(dependencies, runtime, record);
  return 'PENDING';
}

/** The attempt that is on chain, with its receipt; all attempts share one nonce, so at most one is. */
export async function landedAttempt(
  runtime: EvmNetworkRuntime,
  record: EvmTransactionRecord,
): Promise<{ attempt: EvmTransactionAttempt; receipt: TransactionReceipt } | undefined> {
  const receipts = await Promise.all(record.attempts.map((attempt) => receiptOrNull(runtime.client, attempt.transactionHash)));
  const landed = record.attempts.flatMap((attempt, index) => (receipts[index] ? [{ attempt, receipt: receipts[index] }] : []));
  if (landed.length > 1) throw new Error(`two attempts of withdrawal ${record.withdrawalId} share nonce ${record.nonce} on chain`);
  return landed[0];
}

/** Nothing landed yet: replace the latest attempt if it waited too long, else make sure the node still has it (pools drop them). */
async function keepPending(dependencies: EvmAdapterDependencies, runtime: EvmNetworkRuntime, record: EvmTransactionRecord): Promise<void> {
  const latest = latestAttempt(record);
  const waitedMs = dependencies.clock.now().getTime() - latest.signedAt.getTime();
  // Only the wallet that signed the nonce can replace it (the key may have been rotated since).
  const replaceable = record.fromAddress === runtime.address && record.chainId === runtime.chainId;
  // Only the next nonce to be mined: raising a later one's fee would only push every queued transaction towards the fee cap.
  if (
    replaceable &&
    waitedMs >= runtime.replaceAfterMs &&
    (await isNextToMine(runtime, record)) &&
    (await replace(dependencies, runtime, record, latest))
  )
    return;
  if ((await transactionOrNull(runtime.client, latest.transactionHash)) !== null) return;
  dependencies.log?.warn('the node does not know a pending EVM transaction: sending it again', {
    withdrawalId: record.withdrawalId,
    transactionHash: latest.transactionHash,
  });
  await sendLatest(runtime, record);
}

async function isNextToMine(runtime: EvmNetworkRuntime, record: EvmTransactionRecord): Promise<boolean> {
  const mined = await runtime.client.getTransactionCount({ address: runtime.account.address, blockTag: 'latest' });
  return BigInt(mined) === record.nonce;
}

/** Signs the same transaction with higher fees, stores it as the next attempt and sends it; false when the fee cap leaves no room. */
async function replace(
  dependencies: EvmAdapterDependencies,
  runtime: EvmNetworkRuntime,
  record: EvmTransactionRecord,
  latest: EvmTransactionAttempt,
): Promise<boolean> {
  const fees = replacementFees(latest, await runtime.client.estimateFeesPerGas({ type: 'eip1559' }), runtime.feePolicy);
  if (!fees) {
    dependencies.log?.warn('an EVM transaction waits at the fee cap: not replacing it', {
      withdrawalId: record.withdrawalId,
      transactionHash: latest.transactionHash,
    });
    return false;
  }
  const original = parseTransaction(latest.rawTransaction as Hex);
  if (original.type !== 'eip1559' || original.nonce !== Number(record.nonce)) {
    throw new Error(`stored transaction ${latest.transactionHash} is not the EIP-1559 transaction at nonce ${record.nonce}`);
  }
  const transaction: TransactionSerializableEIP1559 = {
    type: 'eip1559',
    chainId: runtime.chainId,
    nonce: original.nonce,
    to: original.to ?? null,
    value: original.value ?? 0n,
    ...(original.data ? { data: original.data } : {}),
    gas: original.gas ?? latest.gasLimit,
    ...fees,
  };
  const replacement = await signAttempt(runtime.account, transaction, latest.attempt + 1, dependencies.clock.now());
  const stored = await insertReplacementAttempt(dependencies.pool, record.withdrawalId, latest.attempt, replacement);
  // Another process replaced it first: send what is stored now, whoever signed it.
  const current = stored
    ? { ...record, attempts: [...record.attempts, { ...replacement, replacedAt: null }] }
    : await evmTransactionOfWithdrawal(dependencies.pool, record.withdrawalId);
  if (!current) throw new Error(`withdrawal ${record.withdrawalId} lost its stored transaction`);
  dependencies.log?.info('replacing a pending EVM transaction at the same nonce with higher fees', {
    withdrawalId: record.withdrawalId,
    replaced: latest.transactionHash,
    replacement: latestAttempt(current).transactionHash,
    maxFeePerGas: fees.maxFeePerGas.toString(),
  });
  await sendLatest(runtime, current);
  return true;
}
