import type { EntityManager } from '@mikro-orm/postgresql';
import { DomainError, assertInvariant } from '../core/errors';
import { buildTravelRuleData } from '../core/travel-rule';
import type { Originator, TravelRuleData } from '../core/travel-rule';
import type { CryptoWithdrawal } from '../db/entities/crypto-withdrawal.entity';
import { Partner } from '../db/entities/partner.entity';
import { PartnerUser } from '../db/entities/partner-user.entity';
import { sumWithdrawnToDestinationEur } from '../db/queries/crypto-withdrawal.queries';

/**
 * A stored withdrawal's travel-rule data: the originator (the user it was made for, else the
 * partner), the beneficiary, and whether the data must be completed, by this withdrawal's EUR value
 * or, when larger, its destination's 24-hour sum up to it (split transfers add up).
 */
export async function travelRuleDataOf(em: EntityManager, withdrawal: CryptoWithdrawal, thresholdEur: string): Promise<TravelRuleData> {
  return buildTravelRuleData(
    await originatorOf(em, withdrawal),
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
      destinationEurLast24h: await sumWithdrawnToDestinationEur(em, {
        partnerId: withdrawal.partnerId,
        destination: withdrawal.destination,
        createdAt: withdrawal.createdAt,
      }),
    },
    thresholdEur,
  );
}

async function originatorOf(em: EntityManager, withdrawal: CryptoWithdrawal): Promise<Originator> {
  if (withdrawal.userId) {
    const user = await em.findOne(PartnerUser, { id: withdrawal.userId });
    if (!user) throw new DomainError('invalid-user', 'the user of this withdrawal no longer exists');
    return {
      kind: 'NATURAL',
      firstName: user.firstName,
      lastName: user.lastName,
      address: user.address,
      city: user.city,
      country: user.country,
      documentType: user.documentType,
      documentNumber: user.documentNumber,
      birthDate: user.birthDate ?? null,
      birthCountry: user.birthCountry ?? null,
      customerId: user.externalUserId,
    };
  }
  const partner = await em.findOne(Partner, { id: withdrawal.partnerId });
  assertInvariant(partner, `partner ${withdrawal.partnerId} exists`);
  return { kind: 'LEGAL', name: partner.name, customerId: partner.id };
}
