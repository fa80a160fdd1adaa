import type { CryptoCurrency } from '../../core/currencies';
import { NETWORK_DECLARATIONS } from '../../core/networks';
import type { Network } from '../../core/networks';
import { assertInvariant } from '../../core/errors';
import { Decimal } from '../../core/money';
import { derivedTransferId } from '../ledger/derived-transfer-id';
import { numberedPlaceholders, postTransferDirectly } from '../ledger/ledger';
import type { LedgerExecutor } from '../ledger/ledger';

/** A withdrawal as far as what its transaction paid the network goes. */
export interface WithdrawalOnChain {
  id: string;
  network: Network;
  transactionHash?: string | null | undefined;
  /** Exact decimal text in the network's coin (crypto_withdrawal.network_fee_paid); null: unknown or simulated. */
  networkFeePaid?: string | null | undefined;
}

/**
 * What the withdrawal's transaction paid the network, out of the house's fee income: FEE_INCOME → NETWORK_FEES in the
 * network's coin, with its record, in the caller's transaction (the one that settles or rejects the withdrawal). From the
 * database alone: the fee was stored when the chain answered. Safe twice: the transfer id is derived from the withdrawal's.
 * Nothing to post when the fee is unknown or zero.
 */
export async function postNetworkFeePaid(
  executor: LedgerExecutor,
  withdrawal: WithdrawalOnChain,
  now: Date,
): Promise<'POSTED' | 'NOTHING'> {
  if (!withdrawal.networkFeePaid || !withdrawal.transactionHash) return 'NOTHING';
  const amount = new Decimal(withdrawal.networkFeePaid);
  assertInvariant(
    amount.isFinite() && amount.gte(0),
    `the network fee of crypto withdrawal ${withdrawal.id} is a decimal of at least zero`,
  );
  if (amount.isZero()) return 'NOTHING';
  const id = derivedTransferId(withdrawal.id, 'network-fee-paid');
  const currency = NETWORK_DECLARATIONS[withdrawal.network].nativeCurrency;
  await postNetworkFee(executor, { transferId: id, currency, amount: amount.toFixed() }, now);
  const record = `insert into crypto_withdrawal_network_fee (id, withdrawal_id, network, currency, amount, transaction_hash, created_at)
     values (?, ?, ?, ?, ?, ?, ?) on conflict (id) do nothing`;
  const values = [id, withdrawal.id, withdrawal.network, currency, amount.toFixed(), withdrawal.transactionHash, now];
  if ('execute' in executor) await executor.execute(record, values);
  else await executor.query(numberedPlaceholders(record), values);
  return 'POSTED';
}

/** The NETWORK_FEE transfer itself, FEE_INCOME → NETWORK_FEES, in the caller's transaction: a withdrawal's, or a sweep's. */
export async function postNetworkFee(
  executor: LedgerExecutor,
  fee: { transferId: string; currency: CryptoCurrency; amount: string },
  now: Date,
): Promise<void> {
  await postTransferDirectly(
    executor,
    {
      transferId: fee.transferId,
      kind: 'NETWORK_FEE',
      postings: [
        { systemAccount: 'FEE_INCOME', currency: fee.currency, amount: new Decimal(fee.amount).negated().toFixed() },
        { systemAccount: 'NETWORK_FEES', currency: fee.currency, amount: fee.amount },
      ],
    },
    now,
  );
}
