import type pg from 'pg';
import type { CryptoCurrency } from '../../core/currencies';
import { assertInvariant } from '../../core/errors';
import { Decimal } from '../../core/money';
import { derivedTransferId } from '../ledger/derived-transfer-id';
import { postTransferDirectly } from '../ledger/ledger';

export interface NetworkFeePaid {
  withdrawalId: string;
  network: string;
  /** The network's coin. */
  currency: CryptoCurrency;
  /** Exact decimal text, at least zero. */
  amount: string;
  transactionHash: string;
}

/**
 * What a settled withdrawal's transaction paid the network, out of the house's fee income: FEE_INCOME → NETWORK_FEES
 * in the network's coin, with its record, in the caller's transaction (the settlement's). Safe twice: the transfer id is
 * derived from the withdrawal's. A fee of zero moves nothing.
 */
export async function recordNetworkFeePaid(client: pg.ClientBase, paid: NetworkFeePaid, now: Date): Promise<'RECORDED' | 'NO_FEE'> {
  const amount = new Decimal(paid.amount);
  assertInvariant(
    amount.isFinite() && amount.gte(0),
    `the network fee of crypto withdrawal ${paid.withdrawalId} is a decimal of at least zero`,
  );
  if (amount.isZero()) return 'NO_FEE';
  const id = derivedTransferId(paid.withdrawalId, 'network-fee-paid');
  await postTransferDirectly(
    client,
    {
      transferId: id,
      kind: 'NETWORK_FEE',
      postings: [
        { systemAccount: 'FEE_INCOME', currency: paid.currency, amount: amount.negated().toFixed() },
        { systemAccount: 'NETWORK_FEES', currency: paid.currency, amount: amount.toFixed() },
      ],
    },
    now,
  );
  await client.query(
    `insert into crypto_withdrawal_network_fee (id, withdrawal_id, network, currency, amount, transaction_hash, created_at)
     values ($1, $2, $3, $4, $5, $6, $7) on conflict (id) do nothing`,
    [id, paid.withdrawalId, paid.network, paid.currency, amount.toFixed(), paid.transactionHash, now],
  );
  return 'RECORDED';
}
