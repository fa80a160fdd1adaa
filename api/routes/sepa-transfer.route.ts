import type { Context } from 'koa';
import type { SepaTransferInput } from '../../activities/sepa-transfer.activities';
import { operationSearchAttributes } from '../../core/search-attributes';
import { workflowIds } from '../../workflows/definitions';
import type { ApiDependencies } from '../dependencies';
import { performIdempotently } from '../idempotency/idempotency';
import { respondJson } from '../http/respond';
import { sepaTransferBodySchema } from '../schemas/sepa-transfer.schema';
import { parseOrThrow } from '../schemas/validation';
import { startAndAwaitReservation } from '../temporal/workflow-runner';

/** POST /v1/partner/sepa-transfer: 201 with transferId once the amount is reserved. */
export function sepaTransferRoute(deps: ApiDependencies) {
  return async (ctx: Context): Promise<void> => {
    const partnerId = ctx.state.partnerId as string;
    const body = parseOrThrow(sepaTransferBodySchema, ctx.state.body, 'invalid-request');
    const response = await performIdempotently(deps.pool, {
      partnerId,
      operation: 'POST /v1/partner/sepa-transfer',
      key: ctx.get('idempotency-key') || undefined,
      body: ctx.state.body,
      async perform(transferId) {
        const input: SepaTransferInput = {
          transferId,
          partnerId,
          amount: body.amount,
          receiverType: body.receiverType,
          receiverFirstName: body.receiverFirstName ?? null,
          receiverLastName: body.receiverLastName ?? null,
          companyName: body.companyName ?? null,
          destinationIban: body.destinationIban,
          transferTitle: body.transferTitle,
        };
        await startAndAwaitReservation(deps.temporal, {
          workflowType: 'sepaTransferWorkflow',
          workflowId: workflowIds.sepaTransfer(transferId),
          args: [input],
          searchAttributes: operationSearchAttributes(partnerId, 'sepa-transfer', 'eur'),
          operation: { id: transferId, ledgerKind: 'SEPA_TRANSFER' },
        });
        return { status: 201, body: { transferId } };
      },
    });
    respondJson(ctx, response.status, response.body);
  };
}
