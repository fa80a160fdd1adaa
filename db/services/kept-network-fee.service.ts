import type { EntityManager } from '@mikro-orm/postgresql';
import type { Currency } from '../../core/currencies';
import { assertInvariant } from '../../core/errors';
import { Decimal } from '../../core/money';
import { CryptoWithdrawalKeptFee } from '../entities/crypto-withdrawal-kept-fee.entity';
import { derivedTransferId } from '../ledger/derived-transfer-id';
import { postTransferDirectly } from '../ledger/ledger';

export interface WithdrawalWithFee {
  id: string;
  partnerId: string;
  currency: Currency;
  fee: string;
}

/**
 * A withdrawal that failed on chain still paid the network: after its hold is voided (in the caller's transaction, so
 * the balance covers it), the fee moves partner → FEE_INCOME with its record. Safe twice: the transfer id is derived.
 */
export async function keepNetworkFee(em: EntityManager, withdrawal: WithdrawalWithFee, now: Date): Promise<'KEPT' | 'NO_FEE'> {
  const fee = new Decimal(withdrawal.fee);
  assertInvariant(fee.isFinite() && fee.gte(0), `the fee of crypto withdrawal ${withdrawal.id} is a decimal of at least zero`);
  if (fee.isZero()) return 'NO_FEE';
  const id = derivedTransferId(withdrawal.id, 'kept-network-fee');
  await postTransferDirectly(
    em,
    {
      transferId: id,
      kind: 'CRYPTO_WITHDRAWAL_FEE',
      postings: [
        { partnerId: withdrawal.partnerId, currency: withdrawal.currency, amount: fee.negated().toFixed() },
        { systemAccount: 'FEE_INCOME', currency: withdrawal.currency, amount: fee.toFixed() },
      ],
    },
    now,
  );
  if (!(await em.findOne(CryptoWithdrawalKeptFee, { id }))) {
    em.create(CryptoWithdrawalKeptFee, {
      id,
      withdrawalId: withdrawal.id,
      partnerId: withdrawal.partnerId,
      currency: withdrawal.currency,
      amount: fee.toFixed(),
      createdAt: now,
    });
    await em.flush();
  }
  return 'KEPT';
}
