import { withdrawCrypto } from '../../operations/crypto-withdrawal.operation';
import type { ApiDependencies } from '../dependencies';
import { idempotentPost } from '../idempotency/idempotent-post';
import { partnerCryptoWithdrawalBodySchema, userCryptoWithdrawalBodySchema } from '../schemas/crypto-withdrawal.schema';

/**
 * POST /v1/partner/crypto-withdrawal and POST /v1/crypto-withdrawal (on behalf of a user):
 * 200 with withdrawalId as soon as amount + fee are reserved. Any invalid body is P410 (spec).
 */
export function cryptoWithdrawalRoute(deps: ApiDependencies, variant: 'partner' | 'user') {
  return idempotentPost(deps, {
    schema: variant === 'partner' ? partnerCryptoWithdrawalBodySchema : userCryptoWithdrawalBodySchema,
    invalidKind: 'invalid-currency',
    successStatus: 200,
    perform: (body, { partnerId, resourceId }) => withdrawCrypto(deps, { ...body, partnerId, withdrawalId: resourceId }),
  });
}
