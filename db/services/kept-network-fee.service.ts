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
 * A withdrawal whose transaction failed on chain still paid the network: once its hold is voided
 * (the amount and the fee are back), the fee leaves again as a transfer of its own, partner →
 * FEE_INCOME, posted at once, with its business record (a line of the partner's history). Runs in
 * the caller's transaction, after the void, so the partner's available balance always covers it.
 * Safe to run twice: the transfer id is derived from the withdrawal's, and the record is written once.
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
