import { encodeFunctionData, erc20Abi, getAddress, isAddress, keccak256 } from 'viem';
import type { Address, Hex, PrivateKeyAccount, TransactionSerializableEIP1559 } from 'viem';
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
import { toBaseUnits, transferKind } from './evm-amounts';
import { CURRENCY_SCALE } from '../../../../core/currencies';
import type { EvmCurrency } from '../../../../core/networks';
import { initialFees } from './evm-fee-policy';
import type { Eip1559Fees } from './evm-fee-policy';
import { NATIVE_TRANSFER_GAS_LIMIT } from './evm-network-config';
import type { EvmAdapterDependencies, EvmNetworkRuntime } from './evm-network-runtime';

/** Signing: nonces handed out by Postgres, one signed transaction per id, stored before it is ever sent. */

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

/** Signs the withdrawal under the hot wallet's next nonce and stores it; fees are asked before, so no network call holds the lock. */
export async function signFirst(
  dependencies: EvmAdapterDependencies,
  runtime: EvmNetworkRuntime,
  request: BroadcastRequest,
): Promise<EvmTransactionRecord> {
  const payment = paymentOf(runtime, request);
  const fees = initialFees(await runtime.client.estimateFeesPerGas({ type: 'eip1559' }), runtime.feePolicy);
  // A transaction the wallet cannot pay for would hold its nonce and every later one: retried until the wallet is topped up.
  await assertWalletCanPay(runtime, payment, fees);
  await ensureNonceSequence(dependencies, runtime, runtime.account.address);
  const { record, signedNow } = await signAndStore(dependencies, runtime, {
    id: request.withdrawalId,
    signer: runtime.account,
    payment,
    fees,
  });
  if (!signedNow) return checkSameWithdrawal(runtime, record, request);
  dependencies.log?.info('signed an EVM withdrawal transaction', {
    withdrawalId: request.withdrawalId,
    network: runtime.network,
    nonce: record.nonce.toString(),
    transactionHash: record.attempts[0]!.transactionHash,
  });
  return record;
}

/** Who signs a stored transaction: the hot wallet (withdrawals, gas top-ups) or a deposit address's key (sweeps). */
export type EvmSigner = Pick<PrivateKeyAccount, 'address' | 'signTransaction'>;

/** What a stored transaction pays, as stored and as signed: a value transfer, or the token's transfer(to, amount). */
export interface EvmPayment {
  currency: EvmCurrency;
  /** Lower case, as stored. */
  destination: string;
  amountBaseUnits: bigint;
  call: { to: Address; value: bigint; data?: Hex; gas: bigint };
}

/**
 * The one place a transaction is first signed: under the signer's next nonce (row locked), stored in the same Postgres
 * transaction before anything is sent. A second call for the same `id` signs nothing and answers what was stored.
 */
export async function signAndStore(
  dependencies: EvmAdapterDependencies,
  runtime: EvmNetworkRuntime,
  input: { id: string; signer: EvmSigner; payment: EvmPayment; fees: Eip1559Fees },
): Promise<{ record: EvmTransactionRecord; signedNow: boolean }> {
  const { id, signer, payment, fees } = input;
  const now = dependencies.clock.now();
  const signed = await inPgTransaction(dependencies.pool, async (client) => {
    const nonce = await lockNextNonce(client, runtime.network, signer.address);
    // Another process may have signed this one while we waited for the lock.
    if (await evmTransactionOfWithdrawal(client, id)) return false;
    const transaction: TransactionSerializableEIP1559 = {
      type: 'eip1559',
      chainId: runtime.chainId,
      nonce: Number(nonce),
      ...payment.call,
      ...fees,
    };
    const attempt = await signAttempt(signer, transaction, 1, now);
    await insertEvmTransaction(
      client,
      {
        withdrawalId: id,
        network: runtime.network,
        chainId: runtime.chainId,
        fromAddress: signer.address,
        nonce,
        currency: payment.currency,
        destination: payment.destination,
        amountBaseUnits: payment.amountBaseUnits,
        createdAt: now,
      },
      attempt,
    );
    return true;
  });
  const record = await evmTransactionOfWithdrawal(dependencies.pool, id);
  if (!record) throw new Error(`transaction ${id} is not stored after signing`);
  return { record, signedNow: signed };
}

export async function assertWalletCanPay(runtime: EvmNetworkRuntime, payment: EvmPayment, fees: Eip1559Fees): Promise<void> {
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

/** A wallet's sequence starts, on first use, at the chain's count of its transactions; then Postgres alone hands out nonces. */
export async function ensureNonceSequence(
  dependencies: EvmAdapterDependencies,
  runtime: EvmNetworkRuntime,
  address: Address,
): Promise<void> {
  if (await walletNonceExists(dependencies.pool, runtime.network, address)) return;
  const count = await runtime.client.getTransactionCount({ address, blockTag: 'pending' });
  await startWalletNonce(dependencies.pool, runtime.network, address, BigInt(count));
}

/** What the withdrawal request pays, as stored and as signed. */
function paymentOf(runtime: EvmNetworkRuntime, request: BroadcastRequest): EvmPayment {
  const { currency } = transferKind(request.currency, runtime.network);
  if (!isAddress(request.destination, { strict: false })) throw new Error(`destination ${request.destination} is not an EVM address`);
  return paymentInUnits(runtime, currency, request.destination, toBaseUnits(request.amount, CURRENCY_SCALE[currency]));
}

/** A payment of `amountBaseUnits` of the currency to `destination` on the runtime's network: a value transfer, or the token's transfer(to, amount). */
export function paymentInUnits(
  runtime: EvmNetworkRuntime,
  currency: EvmCurrency,
  destination: Address,
  amountBaseUnits: bigint,
): EvmPayment {
  const { kind } = transferKind(currency, runtime.network);
  const to = getAddress(destination);
  if (amountBaseUnits <= 0n) throw new Error('a payment moves a positive amount');
  let call: EvmPayment['call'] = { to, value: amountBaseUnits, gas: NATIVE_TRANSFER_GAS_LIMIT };
  if (kind !== 'native') {
    if (!runtime.usdcTokenAddress) throw new Error(`no USDC token address is configured for ${runtime.network}`);
    const data = encodeFunctionData({ abi: erc20Abi, functionName: 'transfer', args: [to, amountBaseUnits] });
    call = { to: runtime.usdcTokenAddress, value: 0n, data, gas: runtime.tokenTransferGasLimit };
  }
  return { currency, destination: to.toLowerCase(), amountBaseUnits, call };
}

/** One signed attempt of a stored transaction, as it is stored: the raw bytes, their hash and their fees. */
export async function signAttempt(
  signer: EvmSigner,
  transaction: TransactionSerializableEIP1559,
  attempt: number,
  now: Date,
): Promise<NewEvmAttempt> {
  const rawTransaction = await signer.signTransaction(transaction);
  const fees: Eip1559Fees = { maxFeePerGas: transaction.maxFeePerGas!, maxPriorityFeePerGas: transaction.maxPriorityFeePerGas! };
  return { attempt, transactionHash: keccak256(rawTransaction), rawTransaction, gasLimit: transaction.gas!, ...fees, signedAt: now };
}
