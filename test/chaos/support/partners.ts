import type { Currency } from '../../../core/currencies';
import { openOrm } from '../../../db/orm';
import { createTestPartner } from '../../support/fixtures';
import { registerUser } from '../../support/operations';
import type { PartnerClient } from './client';
import type { History } from './history';
import { Random } from './random';

/**
 * The simulated partners: each with its API key, two registered users (for withdrawals on their
 * behalf) and deposits far beyond what the run spends, made before any load. Those deposits are
 * the "deposits" of the conservation check, as the history records them here; the network fees
 * come from the API's own quote (get-network-fee), asked once like a partner would.
 */

export const PARTNER_COUNT = 4;
export const USERS_PER_PARTNER = 2;

export const DEPOSITS: Readonly<Partial<Record<Currency, string>>> = {
  eur: '50000000',
  eth: '100000',
  usdc: '50000000',
  // Within what bitcoin's hot wallet holds (60 btc), so custody reconciliation finds no shortfall: the run sends about 1.
  btc: '10',
};

/** The withdrawals the load sends go on ethereum and bitcoin, the chains the checker reads. */
export const WITHDRAWAL_CURRENCIES = ['eth', 'usdc', 'btc'] as const;
export type WithdrawalCurrency = (typeof WITHDRAWAL_CURRENCIES)[number];

export interface SimulatedPartner {
  index: number;
  partnerId: string;
  apiKey: string;
  externalUserIds: string[];
  deposits: Readonly<Partial<Record<Currency, string>>>;
}

export async function createPartners(databaseUrl: string, history: History): Promise<SimulatedPartner[]> {
  const orm = await openOrm(databaseUrl, 2);
  try {
    const partners: SimulatedPartner[] = [];
    for (let index = 0; index < PARTNER_COUNT; index += 1) {
      const partner = await createTestPartner(orm, { deposits: DEPOSITS });
      const externalUserIds: string[] = [];
      for (let user = 1; user <= USERS_PER_PARTNER; user += 1) {
        const externalUserId = `chaos-user-${index + 1}-${user}`;
        await registerUser(orm, partner, externalUserId);
        externalUserIds.push(externalUserId);
      }
      partners.push({ index, partnerId: partner.partnerId, apiKey: partner.apiKey, externalUserIds, deposits: DEPOSITS });
      history.write('partner', { partner: index, partnerId: partner.partnerId, externalUserIds, deposits: DEPOSITS });
    }
    return partners;
  } finally {
    await orm.close(true);
  }
}

/** The network fee of each withdrawal currency, as the API quotes it. */
export async function quoteNetworkFees(
  client: PartnerClient,
  partner: SimulatedPartner,
  seed: number,
): Promise<Record<WithdrawalCurrency, string>> {
  const fees = {} as Record<WithdrawalCurrency, string>;
  for (const currency of WITHDRAWAL_CURRENCIES) {
    const answer = await client.send(
      {
        op: 0,
        apiKey: partner.apiKey,
        method: 'GET',
        path: `/v1/crypto-withdrawal/get-network-fee?currency=${currency}`,
        firstApi: 0,
        maxAttempts: 10,
      },
      Random.stream(seed, `fee-${currency}`),
    );
    const fee = answer.status === 200 && answer.body && !Array.isArray(answer.body) ? answer.body.networkFee : undefined;
    if (typeof fee !== 'string') throw new Error(`get-network-fee for ${currency} answered ${answer.status}`);
    fees[currency] = fee;
  }
  return fees;
}
