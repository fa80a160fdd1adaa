import { z } from 'zod';
import type { ZodOpenApiPathsObject } from 'zod-openapi';
import { WEBHOOK_EVENT_TYPES, isDepositWebhookEventType, isWithdrawalAddressEventType } from '../../core/webhook-event';
import type { WebhookEvent, WebhookEventType } from '../../core/webhook-event';
import { WEBHOOK_EVENT_DOCS, webhookEventSchema } from './webhook-event.schema';

/** The Standard Webhooks headers every delivery carries (https://www.standardwebhooks.com). */
const signatureHeaders = z.object({
  'webhook-id': z
    .string()
    .meta({ description: "The event id (the body's id): the same on every retry.", examples: ['evt_2b1a6c5e3f0e4c528f7d0c8c2a9f4e11'] }),
  'webhook-timestamp': z
    .string()
    .regex(/^\d+$/)
    .meta({
      description: 'When this attempt was signed, in seconds since the Unix epoch; refuse ones far from your clock.',
      examples: ['1795364000'],
    }),
  'webhook-signature': z.string().meta({
    description:
      'Space-separated signatures `v1,<base64>`: HMAC-SHA256 of `{webhook-id}.{webhook-timestamp}.{raw body}` keyed with the ' +
      "base64 part of the endpoint's `whsec_` secret. Verify it over the raw body before parsing, e.g. with the `standardwebhooks` package.",
    examples: ['v1,K5oZfzN95Z9UVu1EsfQmfVNQhnkZ2pj9o9NDN/H/pI4='],
  }),
});

const DELIVERY =
  'Sent as a POST to the endpoint the partner registered, signed per Standard Webhooks. Delivered at least once: ' +
  'anything but a 2xx answer (or none) is retried with backoff for at least a day, under the same event id. ' +
  "Events of one subject (an operation, an address-book entry) arrive in order. An operation's events carry no personal data " +
  '(amounts and details are in the API); an address-book event carries the entry, address and label included.';

/** The OpenAPI 3.1 `webhooks` section: one entry per event type of core/webhook-event.ts. */
export function webhooksSection(): ZodOpenApiPathsObject {
  return Object.fromEntries(WEBHOOK_EVENT_TYPES.map((type) => [type, { post: webhookOperation(type) }]));
}

function webhookOperation(type: WebhookEventType) {
  return {
    operationId: `on_${type.replace('.', '_')}`,
    summary: WEBHOOK_EVENT_DOCS[type].summary,
    description: `${DELIVERY}\n\n${WEBHOOK_EVENT_DOCS[type].data}`,
    // The receiver authenticates us by the signature, not by a key of ours.
    security: [],
    requestParams: { header: signatureHeaders },
    requestBody: {
      required: true,
      content: {
        'application/json': {
          schema: webhookEventSchema(type),
          examples: { [type]: { summary: WEBHOOK_EVENT_DOCS[type].summary, value: exampleEvent(type) } },
        },
      },
    },
    responses: {
      '2XX': { description: 'Received: the event will not be sent again.' },
      default: { description: 'Anything else, or no answer: the event is sent again later.' },
    },
  };
}

function exampleEvent(type: WebhookEventType): WebhookEvent {
  const event = { id: 'evt_2b1a6c5e3f0e4c528f7d0c8c2a9f4e11', timestamp: '2026-11-21T16:12:27.786Z' };
  if (isDepositWebhookEventType(type)) {
    const [status, stage, failureReason, sequence] =
      type === 'deposit.pending'
        ? (['IN_PROGRESS', 'SEEN', null, 1] as const)
        : type === 'deposit.succeeded'
          ? (['SUCCESSFUL', 'CREDITED', null, 2] as const)
          : (['UNSUCCESSFUL', 'BELOW_MINIMUM', 'BELOW_MINIMUM_DEPOSIT', 1] as const);
    return {
      ...event,
      type,
      data: {
        id: '4f1d7a2b-9c3e-4b5a-8d6f-0a1b2c3d4e5f',
        type: 'cryptoDeposit',
        status,
        stage,
        failureReason,
        sequence,
        network: 'ethereum',
        currency: 'eth',
        amount: type === 'deposit.failed' ? '0.0001' : '0.25',
        transactionHash: '0x5c504ed432cb51138bcf09aa5e8a410dd4a1e204ef84bfed1be16dfba1b22060',
      },
    };
  }
  if (!isWithdrawalAddressEventType(type)) {
    return {
      ...event,
      type,
      data: { id: '9d5f2c1a-6b8e-4f3d-a2c7-1e0b9a8d7c6f', status: 'SUCCESSFUL', stage: 'SETTLED', failureReason: null, sequence: 3 },
    };
  }
  return {
    ...event,
    type,
    data: {
      id: '3f6c2a1e-8b4d-4e7f-9a0b-5c1d2e3f4a5b',
      currency: 'usdc',
      network: 'polygon',
      address: '0x52908400098527886E0F7030069857D2E4169EE7',
      label: 'Treasury cold wallet',
      status: type === 'withdrawal_address.deleted' ? 'DELETED' : 'PENDING',
      activeFrom: '2026-11-22T16:12:27.786Z',
      createdAt: '2026-11-21T16:12:27.786Z',
    },
  };
}
