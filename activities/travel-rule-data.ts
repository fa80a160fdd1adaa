import { DomainError, assertInvariant } from '../core/errors';
import { buildTravelRuleData } from '../core/travel-rule';
import type { Originator, TravelRuleData } from '../core/travel-rule';
import type { CryptoWithdrawal } from '../db/entities/crypto-withdrawal.entity';
import type { TravelRuleFacts } from '../db/queries/crypto-withdrawal.queries';

/**
 * A stored withdrawal's travel-rule data: the originator (its user, else the partner), the beneficiary, and whether it must be
 * completed, by its EUR value or, when larger, its destination's 24-hour sum (split transfers add up).
 */
export function travelRuleDataOf(withdrawal: CryptoWithdrawal, facts: Omit<TravelRuleFacts, 'row'>, thresholdEur: string): TravelRuleData {
  return buildTravelRuleData(
    originatorOf(withdrawal, facts),
    {
      name: withdrawal.beneficiaryName,
      receiverType: withdrawal.receiverType,
      walletType: withdrawal.walletType,
      walletAddress: withdrawal.destination,
    },
    {
      currency: withdrawal.currency,
      network: withdrawal.network,
      amount: withdrawal.amount,
      amountEur: withdrawal.amountEur,
      destinationEurLast24h: facts.destinationEurLast24h,
    },
    thresholdEur,
  );
}

function originatorOf(withdrawal: CryptoWithdrawal, facts: Omit<TravelRuleFacts, 'row'>): Originator {
  if (withdrawal.userId) {
    const { user } = facts;
    if (!user) throw new DomainError('invalid-user', 'the user of this withdrawal no longer exists');
    return {
      kind: 'NATURAL',
      firstName: user.first_name,
      lastName: user.last_name,
      address: user.address,
      city: user.city,
      country: user.country,
      documentType: user.document_type,
      documentNumber: user.document_number,
      birthDate: user.birth_date ?? null,
      birthCountry: user.birth_country ?? null,
      customerId: user.external_user_id,
    };
  }
  assertInvariant(facts.partnerName !== null, `partner ${withdrawal.partnerId} exists`);
  return { kind: 'LEGAL', name: facts.partnerName, customerId: withdrawal.partnerId };
}
