import { sendSepaTransfer } from '../../operations/sepa-transfer.operation';
import type { ApiDependencies } from '../dependencies';
import { idempotentPost } from '../idempotency/idempotent-post';
import { sepaTransferBodySchema } from '../schemas/sepa-transfer.schema';

/** POST /v1/partner/sepa-transfer: 201 with transferId once the amount is reserved. */
export function sepaTransferRoute(deps: ApiDependencies) {
  return idempotentPost(deps, {
    schema: sepaTransferBodySchema,
    invalidKind: 'invalid-request',
    successStatus: 201,
    perform: (body, { partnerId, resourceId }) => sendSepaTransfer(deps, { ...body, partnerId, transferId: resourceId }),
  });
}
