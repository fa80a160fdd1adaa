import { z } from 'zod';
import { CRYPTO_CURRENCIES } from '../../core/currencies';
import { NETWORKS } from '../../core/networks';
import {
  DEPOSIT_ENTRY_TYPES,
  DEPOSIT_WEBHOOK_EVENT_TYPES,
  OPERATION_WEBHOOK_EVENT_TYPES,
  WITHDRAWAL_ADDRESS_WEBHOOK_EVENT_TYPES,
  isDepositWebhookEventType,
  isWithdrawalAddressEventType,
} from '../../core/webhook-event';
import type { WebhookEvent, WebhookEventType } from '../../core/webhook-event';
import { WITHDRAWAL_ADDRESS_STATUSES } from '../../core/withdrawal-address-book';
import { OPERATION_STATUSES, nullableText } from '../schemas/response-fields.schema';

/** What each event type says, for the document: its summary and what its data is. */
export const WEBHOOK_EVENT_DOCS: Readonly<Record<WebhookEventType, { summary: string; data: string }>> = {
  'crypto_withdrawal.status_changed': {
    summary: "The status of a crypto withdrawal (the partner's own or on behalf of a user) changed",
    data: 'data.id is the withdrawalId the API returned.',
  },
  'sepa_transfer.status_changed': { summary: 'The status of a SEPA transfer changed', data: 'data.id is the transferId the API returned.' },
  'exchange.status_changed': { summary: 'The status of an exchange changed', data: 'data.id is the exchangeId the API returned.' },
  'deposit.pending': {
    summary: 'A crypto deposit was seen on chain: IN_PROGRESS until its confirmations',
    data: 'data.id is the id of its cryptoDeposit entry in the transaction history.',
  },
  'deposit.succeeded': {
    summary:
      "Money was credited to the balance: a crypto deposit at its confirmations, a SEPA credit transfer to the IBAN, or an operator's credit (SUCCESSFUL)",
    data: "data.id is the id of its entry in the transaction history, data.type that entry's type; network and transactionHash are null for money that did not come on chain.",
  },
  'deposit.failed': {
    summary: 'A crypto deposit will never be credited: UNSUCCESSFUL (below the minimum deposit, or removed by a reorganisation)',
    data: 'data.id is the id of its cryptoDeposit entry in the transaction history.',
  },
  'withdrawal_address.created': {
    summary: 'An address was added to the withdrawal-address book',
    data:
      'data is the new entry as POST /v1/partner/withdrawal-addresses answered it: PENDING until activeFrom (the cooling-off), ACTIVE at once without one. ' +
      'Sent so that whoever watches the book sees every new address while it cannot be used yet: one nobody in your company added means someone else ' +
      'holds an API key of yours; delete the entry and have the key revoked before activeFrom.',
  },
  'withdrawal_address.deleted': {
    summary: 'An address was deleted from the withdrawal-address book',
    data: 'data is the entry as it was, with status DELETED: withdrawals reserved from now on are refused when the allowlist is required (one reserved before keeps going).',
  },
};

const sequence = (description: string, example: number) =>
  z
    .int()
    .min(1)
    .meta({ description, examples: [example] });

const operationEventData = z.strictObject({
  id: z.uuid().meta({ description: 'The operation id, as the API returned it.', examples: ['9d5f2c1a-6b8e-4f3d-a2c7-1e0b9a8d7c6f'] }),
  userId: z.string().optional().meta({ description: "Present when the operation was made on behalf of one of the partner's users." }),
  status: z.enum(OPERATION_STATUSES).meta({ description: 'The public status, as in the history and the withdrawal details.' }),
  stage: z.string().meta({
    description: 'Finer than status: RESERVED, AWAITING_TRAVEL_RULE_DATA, BROADCAST, SETTLED, REJECTED, CANCELLED, …',
    examples: ['SETTLED'],
  }),
  failureReason: nullableText('Why an UNSUCCESSFUL operation ended; null otherwise.', null),
  sequence: sequence('Per operation 1, 2, 3, …: the order of its events.', 3),
});

const depositEventData = z.strictObject({
  id: z.uuid().meta({
    description: 'The deposit id: its entry in the transaction history.',
    examples: ['4f1d7a2b-9c3e-4b5a-8d6f-0a1b2c3d4e5f'],
  }),
  type: z
    .enum(DEPOSIT_ENTRY_TYPES)
    .optional()
    .meta({
      description:
        "Its history entry's type: cryptoDeposit (found on chain, or an operator's crypto credit), sepaDeposit (a SEPA credit transfer), fiatDeposit (an operator's EUR credit). Every event sent now carries it.",
      examples: ['cryptoDeposit'],
    }),
  status: z
    .enum(OPERATION_STATUSES)
    .meta({ description: 'IN_PROGRESS (waiting for confirmations), SUCCESSFUL (credited) or UNSUCCESSFUL (never credited).' }),
  stage: z.enum(['SEEN', 'CREDITED', 'BELOW_MINIMUM', 'ORPHANED']).meta({ description: 'Finer than status.', examples: ['CREDITED'] }),
  failureReason: z
    .enum(['BELOW_MINIMUM_DEPOSIT', 'REMOVED_BY_REORGANISATION'])
    .nullable()
    .meta({ description: 'Why an UNSUCCESSFUL deposit is not credited; null otherwise.', examples: [null] }),
  sequence: sequence('Per deposit 1, 2, …: the order of its events.', 2),
  network: nullableText('The network it arrived on; null for money that did not come on chain.', 'ethereum'),
  currency: z.string().meta({ description: 'The currency slug credited.', examples: ['eth'] }),
  amount: z
    .string()
    .regex(/^\d+(\.\d+)?$/)
    .meta({ description: 'The exact amount that arrived, a decimal string.', examples: ['0.25'] }),
  transactionHash: nullableText('The transaction on chain; null for money that did not come on chain.', `0x${'ab'.repeat(32)}`),
});

const withdrawalAddressEventData = z.strictObject({
  id: z.uuid().meta({ description: "The entry's id.", examples: ['3f6c2a1e-8b4d-4e7f-9a0b-5c1d2e3f4a5b'] }),
  currency: z.enum(CRYPTO_CURRENCIES).meta({ description: 'The currency, lower case.', examples: ['usdc'] }),
  network: z.enum(NETWORKS).meta({ description: 'The network, lower case.', examples: ['polygon'] }),
  address: z.string().meta({ description: 'The address, as it was added.', examples: ['0x52908400098527886E0F7030069857D2E4169EE7'] }),
  label: z.string().meta({ description: 'Its label.', examples: ['Treasury cold wallet'] }),
  status: z.enum([...WITHDRAWAL_ADDRESS_STATUSES, 'DELETED']).meta({
    description: 'PENDING (in its cooling-off) or ACTIVE when added; DELETED when deleted.',
  }),
  activeFrom: z.iso.datetime().meta({ description: 'When the entry becomes (or became) ACTIVE.', examples: ['2026-11-22T16:12:27.786Z'] }),
  createdAt: z.iso.datetime().meta({ description: 'When the entry was added.', examples: ['2026-11-21T16:12:27.786Z'] }),
});

/** The body of one event type (Standard Webhooks payload), around the data of its family. */
function envelope<Type extends WebhookEventType, Data extends z.ZodType>(type: Type, data: Data) {
  return z.strictObject({
    id: z
      .string()
      .min(1)
      .meta({
        description: 'The event id, also sent as webhook-id: the same on every retry, so a receiver can drop duplicates.',
        examples: ['evt_2b1a6c5e3f0e4c528f7d0c8c2a9f4e11'],
      }),
    type: z.literal(type).meta({ description: 'The event type.' }),
    timestamp: z.iso.datetime().meta({ description: 'When the change happened (UTC).', examples: ['2026-11-21T16:12:27.786Z'] }),
    data,
  });
}

/** The body of one event type. */
export function webhookEventSchema(type: WebhookEventType) {
  if (isDepositWebhookEventType(type)) return envelope(type, depositEventData);
  return isWithdrawalAddressEventType(type) ? envelope(type, withdrawalAddressEventData) : envelope(type, operationEventData);
}

/** Any event, for receivers that parse them all with one schema. */
export const anyWebhookEventSchema = z.union([
  ...OPERATION_WEBHOOK_EVENT_TYPES.map((type) => envelope(type, operationEventData)),
  ...DEPOSIT_WEBHOOK_EVENT_TYPES.map((type) => envelope(type, depositEventData)),
  ...WITHDRAWAL_ADDRESS_WEBHOOK_EVENT_TYPES.map((type) => envelope(type, withdrawalAddressEventData)),
]);

// The schema and core's type describe the same body: neither may drift from the other.
type Same<Left, Right> = [Left] extends [Right] ? ([Right] extends [Left] ? true : false) : false;
const schemaMatchesCoreType: Same<z.output<typeof anyWebhookEventSchema>, WebhookEvent> = true;
void schemaMatchesCoreType;
