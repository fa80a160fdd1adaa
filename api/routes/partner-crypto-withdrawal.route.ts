import { partnerCryptoWithdrawalBodySchema } from '../schemas/crypto-withdrawal.schema';
import { WITHDRAWAL_DESCRIPTION, WITHDRAWAL_EXAMPLE_BODIES, withdrawalCreated, withdrawalHandler } from './crypto-withdrawal.shared';
import type { Route } from './route';

/** POST /v1/partner/crypto-withdrawal: 200 with withdrawalId as soon as amount + fee are reserved. Any invalid body is P410 (spec). */
export const partnerCryptoWithdrawalRoute: Route = {
  method: 'post',
  path: '/v1/partner/crypto-withdrawal',
  authenticated: true,
  docs: {
    operationId: 'createPartnerCryptoWithdrawal',
    tag: 'Partner',
    summary: "Withdraw crypto from the partner's balance",
    description: WITHDRAWAL_DESCRIPTION,
    errors: [
      'invalid-currency',
      'insufficient-funds',
      'address-not-allowlisted',
      'limit-exceeded',
      'operation-abandoned',
      'too-many-operations',
    ],
  },
  request: {
    body: {
      schema: partnerCryptoWithdrawalBodySchema,
      examples: {
        btc: { summary: 'BTC to a person', value: WITHDRAWAL_EXAMPLE_BODIES.btc },
        usdcOnPolygon: { summary: 'USDC on polygon to a company', value: WITHDRAWAL_EXAMPLE_BODIES.usdcOnPolygon },
      },
    },
  },
  response: withdrawalCreated,
  handler: withdrawalHandler(partnerCryptoWithdrawalBodySchema),
};
