import { userCryptoWithdrawalBodySchema } from '../schemas/crypto-withdrawal.schema';
import { WITHDRAWAL_DESCRIPTION, WITHDRAWAL_EXAMPLE_BODIES, withdrawalCreated, withdrawalHandler } from './crypto-withdrawal.shared';
import type { Route } from './route';

const USER = 'user-4711';

/** POST /v1/crypto-withdrawal: on behalf of a registered user (sourceExternalUserId, the travel-rule originator). */
export const userCryptoWithdrawalRoute: Route = {
  method: 'post',
  path: '/v1/crypto-withdrawal',
  authenticated: true,
  docs: {
    operationId: 'createUserCryptoWithdrawal',
    tag: 'Crypto withdrawals',
    summary: 'Withdraw crypto on behalf of a user',
    description: `For one of the partner's registered users (the travel-rule originator), debited from the partner's balance. ${WITHDRAWAL_DESCRIPTION}`,
    errors: [
      'invalid-user',
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
      schema: userCryptoWithdrawalBodySchema,
      examples: {
        btc: { summary: `BTC for ${USER}`, value: { ...WITHDRAWAL_EXAMPLE_BODIES.btc, sourceExternalUserId: USER } },
        usdcOnPolygon: {
          summary: `USDC on polygon for ${USER}`,
          value: { ...WITHDRAWAL_EXAMPLE_BODIES.usdcOnPolygon, sourceExternalUserId: USER },
        },
      },
    },
  },
  response: withdrawalCreated,
  handler: withdrawalHandler(userCryptoWithdrawalBodySchema),
};
