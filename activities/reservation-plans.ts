import { Decimal } from '../core/money';
import { addressMatchingKey } from '../core/withdrawal-address-book';
import type { CryptoWithdrawalInput, SepaTransferInput } from '../contracts';
import type { PostingInput } from '../db/ledger/ledger';
import type { ReservationPlan } from '../db/queries/reservation.queries';

/* What each outgoing payment's reservation writes: its ledger hold and its record, by column. */

/** What a withdrawal's reservation writes: amount + fee held from the partner, and its row (by column). */
export function withdrawalReservation(input: CryptoWithdrawalInput, now: Date): ReservationPlan {
  const total = new Decimal(input.amount).plus(input.fee);
  const postings: PostingInput[] = [
    { partnerId: input.partnerId, currency: input.currency, amount: total.negated().toFixed() },
    { systemAccount: 'CRYPTO_WITHDRAWALS', currency: input.currency, amount: input.amount },
  ];
  if (!new Decimal(input.fee).isZero()) postings.push({ systemAccount: 'FEE_INCOME', currency: input.currency, amount: input.fee });
  return {
    transfer: { transferId: input.withdrawalId, kind: 'CRYPTO_WITHDRAWAL', postings },
    // The partner's limit counts the amount at the rates of its acceptance, the fee excluded.
    amountEur: input.amountEur,
    addressKey: addressMatchingKey(input.network, input.destination),
    record: {
      id: input.withdrawalId,
      partner_id: input.partnerId,
      user_id: input.userId,
      currency: input.currency,
      network: input.network,
      amount: input.amount,
      fee: input.fee,
      destination: input.destination,
      memo: input.memo,
      wallet_type: input.walletType,
      receiver_type: input.receiverType,
      beneficiary_name: input.beneficiaryName,
      status: 'IN_PROGRESS',
      stage: 'RESERVED',
      amount_eur: input.amountEur,
      created_at: now.toISOString(),
      updated_at: now.toISOString(),
    },
  };
}

/**
 * What a SEPA transfer's reservation writes: the amount held from the partner's EUR account (named
 * by partner and currency: ledger_open finds it), and its row (by column).
 */
export function sepaTransferReservation(input: SepaTransferInput, now: Date): ReservationPlan {
  return {
    transfer: {
      transferId: input.transferId,
      kind: 'SEPA_TRANSFER',
      postings: [
        { partnerId: input.partnerId, currency: 'eur', amount: new Decimal(input.amount).negated().toFixed() },
        { systemAccount: 'SEPA_CLEARING', currency: 'eur', amount: input.amount },
      ],
    },
    amountEur: input.amount,
    addressKey: null,
    record: {
      id: input.transferId,
      partner_id: input.partnerId,
      currency: 'eur',
      amount: input.amount,
      receiver_type: input.receiverType,
      receiver_first_name: input.receiverFirstName,
      receiver_last_name: input.receiverLastName,
      company_name: input.companyName,
      destination_iban: input.destinationIban,
      transfer_title: input.transferTitle,
      status: 'IN_PROGRESS',
      stage: 'RESERVED',
      created_at: now.toISOString(),
      updated_at: now.toISOString(),
    },
  };
}
