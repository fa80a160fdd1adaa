import { z } from 'zod';
import { sendSepaTransfer } from '../../operations/sepa-transfer.operation';
import { jsonNumber } from '../http/exact-json';
import { idempotentPost } from '../idempotency/idempotent-post';
import { idField } from '../schemas/response-fields.schema';
import { sepaTransferBodySchema } from '../schemas/sepa-transfer.schema';
import type { Route, RouteResponse } from './route';

/** What the route answers: a field added here is one the handler below must write (it does not compile until then). */
const transferCreated = {
  status: 201,
  description: 'The amount is held; the transfer is under way.',
  body: z
    .strictObject({ transferId: idField('The SEPA transfer id.', '3c4d5e6f-7a8b-4c9d-8e0f-1a2b3c4d5e6f') })
    .meta({ id: 'TransferCreated' }),
  examples: { created: { summary: 'Under way', value: { transferId: '3c4d5e6f-7a8b-4c9d-8e0f-1a2b3c4d5e6f' } } },
} satisfies RouteResponse;

/** POST /v1/partner/sepa-transfer: 201 with transferId once the amount is reserved. */
export const sepaTransferRoute: Route = {
  method: 'post',
  path: '/v1/partner/sepa-transfer',
  authenticated: true,
  docs: {
    operationId: 'createSepaTransfer',
    tag: 'Partner',
    summary: 'Send a SEPA credit transfer in EUR',
    description:
      "Holds the amount on the partner's active eur balance and answers; the payment is then submitted to the bank (ISO 20022 " +
      'pain.001) and settled or released on its answer. Follow it in the history or with the sepa_transfer.status_changed webhook.',
    errors: ['partner-not-found', 'insufficient-funds', 'limit-exceeded', 'operation-abandoned', 'too-many-operations'],
  },
  request: {
    body: {
      schema: sepaTransferBodySchema,
      examples: {
        person: {
          summary: 'To a person, amount as a string',
          value: {
            currency: 'eur',
            amount: '1250.00',
            receiverType: 'NATURAL',
            receiverFirstName: 'Jane',
            receiverLastName: 'Doe',
            destinationIban: 'DE89370400440532013000',
            transferTitle: 'Invoice 2026-118',
          },
        },
        company: {
          summary: 'To a company, amount as a number',
          value: {
            currency: 'eur',
            amount: jsonNumber('99.9'),
            receiverType: 'LEGAL',
            companyName: 'Acme SARL',
            destinationIban: 'FR1420041010050500013M02606',
            transferTitle: 'Order 77/2026',
          },
        },
      },
    },
  },
  response: transferCreated,
  handler: (deps) =>
    idempotentPost(deps, {
      schema: sepaTransferBodySchema,
      invalidKind: 'invalid-request',
      response: transferCreated,
      perform: async (body, { partnerId, resourceId }) => {
        const { transferId } = await sendSepaTransfer(deps, { ...body, partnerId, transferId: resourceId });
        return { transferId };
      },
    }),
};
