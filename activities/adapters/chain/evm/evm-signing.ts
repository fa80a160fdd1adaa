import { encodeFunctionData, erc20Abi, getAddress, isAddress, keccak256 } from 'viem';
import type { TransactionSerializableEIP1559 } from 'viem';
import { inPgTransaction } from '../../../../db/pg-transaction';
import {
  evmTransactionOfWithdrawal,
  insertEvmTransaction,
  lockNextNonce,
  startWalletNonce,
  walletNonceExists,
} from '../../../../db/queries/evm-transaction.queries';
import type { EvmTransactionRecord, NewEvmAttempt } from '../../../../db/queries/evm-transaction.queries';
import type { BroadcastRequest } from '../chain-adapter';
import { EVM_DECIMALS, toBaseUnits, transferKind } from './evm-amounts';
import { initialFees } from './evm-fee-policy';
import type { Eip1559Fees } from './evm-fee-policy';
import { NATIVE_TRANSFER_GAS_LIMIT } from './evm-network-config';
import type { EvmAdapterDependencies, EvmNetworkRuntime } from './evm-network-runtime';

/**
 * Signing a withdrawal's transaction: the wallet's nonces handed out by Postgres, one signed
 * transaction per withdrawal, stored before it is ever sent (see EvmChainAdapter).
 */

/** A stored withdrawal is resent only if the request asks for exactly what was signed. */
export function checkSameWithdrawal(
  runtime: EvmNetworkRuntime,
  stored: EvmTransactionRecord,
  request: BroadcastRequest,
): EvmTransactionRecord {
  const payment = paymentOf(runtime, request);
  const same =
    stored.network === runtime.network &&
    stored.currency === payment.currency &&
    stored.destination === payment.destination &&
    stored.amountBaseUnits === payment.amountBaseUnits;
  // Same withdrawal id with other details would be a second, different payment: refuse it.
  if (!same) throw new Error(`withdrawal ${request.withdrawalId} was already broadcast with different details`);
  return stored;
}

/**
 * Signs the withdrawal's transaction under the wallet's next nonce and stores it, in one
 * Postgres transaction; the node is asked for fees before (no network call holds the lock).
 */
export async function signFirst(
  dependencies: EvmAdapterDependencies,
  runtime: EvmNetworkRuntime,
  request: BroadcastRequest,
): Promise<EvmTransactionRecord> {
  const payment = paymentOf(runtime, request);
  const fees = initialFees(await runtime.client.estimateFeesPerGas({ type: 'eip1559' }), runtime.feePolicy);
  // A transaction the wallet cannot pay for would hold its nonce and every later one: wait
  // (retried) before a nonce is taken, until the hot wallet is topped up.
  await assertWalletCanPay(runtime, payment, fees);
  await ensureNonceSequence(dependencies, runtime);
  const now = dependencies.clock.now();
  const signed = await inPgTransaction(dependencies.pool, async (client) => {
    const nonce = await lockNextNonce(client, runtime.network, runtime.address);
    // Another process may have signed this withdrawal while we waited for the lock.
    if (await evmTransactionOfWithdrawal(client, request.withdrawalId)) return undefined;
    const transaction: TransactionSerializableEIP1559 = {
      type: 'eip1559',
      chainId: runtime.chainId,
      nonce: Number(nonce),
      ...payment.call,
      ...fees,
    };
    const attempt = await signAttempt(runtime, transaction, 1, now);
    await insertEvmTransaction(
      client,
      {
        withdrawalId: request.withdrawalId,
        network: runtime.network,
        chainId: runtime.chainId,
        fromAddress: runtime.address,
        nonce,
        currency: payment.currency,
        destination: payment.destination,
        amountBaseUnits: payment.amountBaseUnits,
        createdAt: now,
      },
      attempt,
    );
    return attempt;
  });
  const record = await evmTransactionOfWithdrawal(dependencies.pool, request.withdrawalId);
  if (!record) throw new Error(`withdrawal ${request.withdrawalId} has no stored transaction after signing`);
  if (!signed) return checkSameWithdrawal(runtime, record, request);
  dependencies.log?.info('signed an EVM withdrawal transaction', {
    withdrawalId: request.withdrawalId,
    network: runtime.network,
    nonce: record.nonce.toString(),
    transactionHash: signed.transactionHash,
  });
  return record;
}

async function assertWalletCanPay(runtime: EvmNetworkRuntime, payment: ReturnType<typeof paymentOf>, fees: Eip1559Fees): Promise<void> {
  const gasCost = payment.call.gas * fees.maxFeePerGas;
  const native = await runtime.client.getBalance({ address: runtime.account.address, blockTag: 'pending' });
  if (native < payment.call.value + gasCost) {
    throw new Error(
      `the ${runtime.network} hot wallet holds ${native} wei, short of ${payment.call.value + gasCost} wei for this withdrawal and its gas`,
    );
  }
  if (payment.call.value === 0n && runtime.usdcTokenAddress) {
    const tokens = await runtime.client.readContract({
      address: runtime.usdcTokenAddress,
      abi: erc20Abi,
      functionName: 'balanceOf',
      args: [runtime.account.address],
    });
    if (tokens < payment.amountBaseUnits) {
      throw new Error(`the ${runtime.network} hot wallet holds ${tokens} USDC base units, short of ${payment.amountBaseUnits}`);
    }
  }
}

/**
 * A wallet's sequence starts, on its first use, at the chain's count of its transactions
 * (pending included); from then on Postgres alone hands out its nonces.
 */
async function ensureNonceSequence(dependencies: EvmAdapterDependencies, runtime: EvmNetworkRuntime): Promise<void> {
  if (await walletNonceExists(dependencies.pool, runtime.network, runtime.address)) return;
  const count = await runtime.client.getTransactionCount({ address: runtime.account.address, blockTag: 'pending' });
  await startWalletNonce(dependencies.pool, runtime.network, runtime.address, BigInt(count));
}

/** What the request pays, as stored and as signed: a value transfer, or the token's transfer(to, amount). */
function paymentOf(runtime: EvmNetworkRuntime, request: BroadcastRequest) {
  const { kind, currency } = transferKind(request.currency, runtime.network);
  if (!isAddress(request.destination, { strict: false })) throw new Error(`destination ${request.destination} is not an EVM address`);
  const destination = getAddress(request.destination);
  const amountBaseUnits = toBaseUnits(request.amount, EVM_DECIMALS[currency]);
  if (kind === 'native') {
    return {
      currency,
      destination: destination.toLowerCase(),
      amountBaseUnits,
      call: { to: destination, value: amountBaseUnits, gas: NATIVE_TRANSFER_GAS_LIMIT },
    };
  }
  if (!runtime.usdcTokenAddress) throw new Error(`no USDC token address is configured for ${runtime.network}`);
  const data = encodeFunctionData({ abi: erc20Abi, functionName: 'transfer', args: [destination, amountBaseUnits] });
  return {
    currency,
    destination: destination.toLowerCase(),
    amountBaseUnits,
    call: { to: runtime.usdcTokenAddress, value: 0n, data, gas: runtime.tokenTransferGasLimit },
  };
}

/** One signed attempt of a withdrawal's transaction, as it is stored: the raw bytes, their hash and their fees. */
export async function signAttempt(
  runtime: EvmNetworkRuntime,
  transaction: TransactionSerializableEIP1559,
  attempt: number,
  now: Date,
): Promise<NewEvmAttempt> {
  const rawTransaction = await runtime.account.signTransaction(transaction);
  const fees: Eip1559Fees = { maxFeePerGas: transaction.maxFeePerGas!, maxPriorityFeePerGas: transaction.maxPriorityFeePerGas! };
  return { attempt, transactionHash: keccak256(rawTransaction), rawTransaction, gasLimit: transaction.gas!, ...fees, signedAt: now };
}
