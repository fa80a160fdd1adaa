import type { CryptoCurrency } from './currencies';
import type { Network } from './networks';
import { OPERATION_TYPES, OPERATION_TYPE_NAMES } from './operation-types';
import type { OperationType } from './operation-types';
import type { OperationStatus } from './operation-status';
import type { WithdrawalAddressStatus } from './withdrawal-address-book';

/**
 * The JSON body a partner's webhook endpoint receives (Standard Webhooks). Operation events carry no
 * personal data; address-book events carry the entry itself, so the partner's security team sees every
 * new address during its cooling-off. A subject's events are numbered 1, 2, 3, … and delivered in order.
 */

/** One per operation type (core/operation-types.ts). */
export type OperationWebhookEventType = (typeof OPERATION_TYPES)[OperationType]['webhookEventType'];
export const OPERATION_WEBHOOK_EVENT_TYPES: readonly OperationWebhookEventType[] = OPERATION_TYPE_NAMES.map(
  (type) => OPERATION_TYPES[type].webhookEventType,
);

/** A deposit seen on chain (pending), credited (succeeded: on chain, by SEPA credit or by an operator), or never to be credited (failed). */
export const DEPOSIT_WEBHOOK_EVENT_TYPES = ['deposit.pending', 'deposit.succeeded', 'deposit.failed'] as const;
export type DepositWebhookEventType = (typeof DEPOSIT_WEBHOOK_EVENT_TYPES)[number];

export const WITHDRAWAL_ADDRESS_WEBHOOK_EVENT_TYPES = ['withdrawal_address.created', 'withdrawal_address.deleted'] as const;
export type WithdrawalAddressWebhookEventType = (typeof WITHDRAWAL_ADDRESS_WEBHOOK_EVENT_TYPES)[number];

export type WebhookEventType = OperationWebhookEventType | DepositWebhookEventType | WithdrawalAddressWebhookEventType;
export const WEBHOOK_EVENT_TYPES: readonly WebhookEventType[] = [
  ...OPERATION_WEBHOOK_EVENT_TYPES,
  ...DEPOSIT_WEBHOOK_EVENT_TYPES,
  ...WITHDRAWAL_ADDRESS_WEBHOOK_EVENT_TYPES,
];

/** `webhook_event.operation_type`: `deposit` is any credit not found on chain (SEPA, an operator's). */
export type WebhookSubjectType = OperationType | 'crypto-deposit' | 'deposit' | 'withdrawal-address';
export const WEBHOOK_SUBJECT_TYPES: readonly WebhookSubjectType[] = [
  ...OPERATION_TYPE_NAMES,
  'crypto-deposit',
  'deposit',
  'withdrawal-address',
];

/** The history entry types a deposit event can be about. */
export const DEPOSIT_ENTRY_TYPES = ['cryptoDeposit', 'sepaDeposit', 'fiatDeposit'] as const;
export type DepositEntryType = (typeof DEPOSIT_ENTRY_TYPES)[number];

interface Envelope<Type extends WebhookEventType, Data> {
  /** The event id, also sent as `webhook-id`: stable across retries, so a receiver can drop duplicates. */
  id: string;
  type: Type;
  /** When the change happened (ISO 8601, UTC). */
  timestamp: string;
  data: Data;
}

export type OperationWebhookEvent = Envelope<OperationWebhookEventType, OperationEventData>;
export type DepositWebhookEvent = Envelope<DepositWebhookEventType, DepositWebhookEventData>;
export type WithdrawalAddressWebhookEvent = Envelope<WithdrawalAddressWebhookEventType, WithdrawalAddressEventData>;
export type WebhookEvent = OperationWebhookEvent | DepositWebhookEvent | WithdrawalAddressWebhookEvent;

export interface OperationEventData {
  /** The operation's id as the API returned it (withdrawal, SEPA transfer or exchange id). */
  id: string;
  /** The request's `sourceExternalUserId`, when made on behalf of one of the partner's users. */
  userId?: string;
  status: OperationStatus;
  /** Finer than status: RESERVED, AWAITING_TRAVEL_RULE_DATA, BROADCAST, SETTLED, REJECTED, CANCELLED, … */
  stage: string;
  /** Why an UNSUCCESSFUL operation ended; null otherwise. */
  failureReason: string | null;
  /** Per operation, 1, 2, 3, …: events of one operation are delivered in this order. */
  sequence: number;
}

/** A deposit's event: what arrived, on which transaction, and where it stands (the id is the history entry's). */
export interface DepositWebhookEventData {
  /** The deposit's id: its entry in the transaction history. */
  id: string;
  /** Its history entry's type; absent only from older events. */
  type?: DepositEntryType;
  /** IN_PROGRESS (seen, waiting for confirmations), SUCCESSFUL (credited) or UNSUCCESSFUL (never credited). */
  status: OperationStatus;
  stage: 'SEEN' | 'CREDITED' | 'BELOW_MINIMUM' | 'ORPHANED';
  /** Why an UNSUCCESSFUL deposit is not credited; null otherwise. */
  failureReason: 'BELOW_MINIMUM_DEPOSIT' | 'REMOVED_BY_REORGANISATION' | null;
  sequence: number;
  /** The network it arrived on; null for money that did not come on chain. */
  network: string | null;
  currency: string;
  /** The exact decimal amount that arrived, as a string (18 decimals for eth would not survive a float). */
  amount: string;
  /** The transaction on chain; null for money that did not come on chain. */
  transactionHash: string | null;
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

export function isDepositWebhookEventType(type: string): type is DepositWebhookEventType {
  return (DEPOSIT_WEBHOOK_EVENT_TYPES as readonly string[]).includes(type);
}

export function isDepositWebhookEvent(event: WebhookEvent): event is DepositWebhookEvent {
  return isDepositWebhookEventType(event.type);
}

export function isWithdrawalAddressEventType(type: string): type is WithdrawalAddressWebhookEventType {
  return (WITHDRAWAL_ADDRESS_WEBHOOK_EVENT_TYPES as readonly string[]).includes(type);
}

export function isWithdrawalAddressEvent(event: WebhookEvent): event is WithdrawalAddressWebhookEvent {
  return isWithdrawalAddressEventType(event.type);
}
