import type { CryptoCurrency, Network } from './currencies';
import { OPERATION_TYPES, OPERATION_TYPE_NAMES } from './operation-types';
import type { OperationType } from './operation-types';
import type { OperationStatus } from './operation-status';
import type { WithdrawalAddressStatus } from './withdrawal-address-book';

/**
 * What a partner's webhook endpoint receives (Standard Webhooks: `webhook-id`, `webhook-timestamp`,
 * `webhook-signature` headers; this is the JSON body). Two families, told apart by `type`:
 * - an operation's status or stage change, one type per operation type: ids, amounts, currencies,
 *   status, stage and failure reason only, no personal data;
 * - a change of the partner's withdrawal-address book: the entry itself, address and label
 *   included (the partner's own, and the point: its security team sees every new address during
 *   the cooling-off).
 * Every event is about one subject (an operation, an address-book entry); a subject's events are
 * numbered 1, 2, 3, … and delivered in that order. Shared by the delivery (activities) and the
 * OpenAPI document (its `webhooks` section).
 */

/** One per operation type (core/operation-types.ts). */
export type OperationWebhookEventType = (typeof OPERATION_TYPES)[OperationType]['webhookEventType'];
export const OPERATION_WEBHOOK_EVENT_TYPES: readonly OperationWebhookEventType[] = OPERATION_TYPE_NAMES.map(
  (type) => OPERATION_TYPES[type].webhookEventType,
);

export const WITHDRAWAL_ADDRESS_WEBHOOK_EVENT_TYPES = ['withdrawal_address.created', 'withdrawal_address.deleted'] as const;
export type WithdrawalAddressWebhookEventType = (typeof WITHDRAWAL_ADDRESS_WEBHOOK_EVENT_TYPES)[number];

export type WebhookEventType = OperationWebhookEventType | WithdrawalAddressWebhookEventType;
export const WEBHOOK_EVENT_TYPES: readonly WebhookEventType[] = [
  ...OPERATION_WEBHOOK_EVENT_TYPES,
  ...WITHDRAWAL_ADDRESS_WEBHOOK_EVENT_TYPES,
];

/** What the outbox's rows are about (`webhook_event.operation_type`): an operation type, or an address-book entry. */
export type WebhookSubjectType = OperationType | 'withdrawal-address';
export const WEBHOOK_SUBJECT_TYPES: readonly WebhookSubjectType[] = [...OPERATION_TYPE_NAMES, 'withdrawal-address'];

interface Envelope<Type extends WebhookEventType, Data> {
  /** The event id, also sent as `webhook-id`: stable across retries, so a receiver can drop duplicates. */
  id: string;
  type: Type;
  /** When the change happened (ISO 8601, UTC). */
  timestamp: string;
  data: Data;
}

export type OperationWebhookEvent = Envelope<OperationWebhookEventType, OperationEventData>;
export type WithdrawalAddressWebhookEvent = Envelope<WithdrawalAddressWebhookEventType, WithdrawalAddressEventData>;
export type WebhookEvent = OperationWebhookEvent | WithdrawalAddressWebhookEvent;

export interface OperationEventData {
  /** The operation's id as the API returned it (withdrawal, SEPA transfer or exchange id). */
  id: string;
  /**
   * Present when the operation was made on behalf of one of the partner's users: the partner's own
   * id for the user (the `sourceExternalUserId` of the request).
   */
  userId?: string;
  status: OperationStatus;
  /** Finer than status: RESERVED, AWAITING_TRAVEL_RULE_DATA, BROADCAST, SETTLED, REJECTED, CANCELLED, … */
  stage: string;
  /** Why an UNSUCCESSFUL operation ended; null otherwise. */
  failureReason: string | null;
  /** Per operation, 1, 2, 3, …: events of one operation are delivered in this order. */
  sequence: number;
}

/** The entry as the address-book routes show it; `DELETED` only in `withdrawal_address.deleted`. */
export interface WithdrawalAddressEventData {
  id: string;
  currency: CryptoCurrency;
  network: Network;
  address: string;
  label: string;
  status: WithdrawalAddressStatus | 'DELETED';
  activeFrom: string;
  createdAt: string;
}

export function isWithdrawalAddressEventType(type: string): type is WithdrawalAddressWebhookEventType {
  return (WITHDRAWAL_ADDRESS_WEBHOOK_EVENT_TYPES as readonly string[]).includes(type);
}

export function isWithdrawalAddressEvent(event: WebhookEvent): event is WithdrawalAddressWebhookEvent {
  return isWithdrawalAddressEventType(event.type);
}
