import type { CryptoCurrency, Network } from './currencies';
import { OPERATION_TYPES, OPERATION_TYPE_NAMES } from './operation-types';
import type { OperationType } from './operation-types';
import type { OperationStatus } from './operation-status';
import type { WithdrawalAddressStatus } from './withdrawal-address-book';

/**
 * What a partner's webhook endpoint receives (Standard Webhooks: `webhook-id`, `webhook-timestamp`,
 * `webhook-signature` headers; this is the JSON body). Three families, told apart by `type`:
 * - an operation's status or stage change, one type per operation type: ids, amounts, currencies,
 *   status, stage and failure reason only, no personal data;
 * - a deposit: one found on chain seen, credited or never to be credited (what arrived and on
 *   which transaction; no wallet address: the partner's is its balance's), or money credited
 *   otherwise (a SEPA credit transfer, an operator's credit), credited when written;
 * - a change of the partner's withdrawal-address book: the entry itself, address and label
 *   included (the partner's own, and the point: its security team sees every new address during
 *   the cooling-off).
 * Every event is about one subject (an operation, a deposit, an address-book entry); a subject's
 * events are numbered 1, 2, 3, … and delivered in that order. Shared by the delivery (activities)
 * and the OpenAPI document (its `webhooks` section).
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

/**
 * What the outbox's rows are about (`webhook_event.operation_type`): an operation type, a deposit
 * found on chain (`crypto_deposit`), any other credit (`deposit`: SEPA, an operator's), or an
 * address-book entry.
 */
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

/** A deposit's event: what arrived, on which transaction, and where it stands (the id is the history entry's). */
export interface DepositWebhookEventData {
  /** The deposit's id: its entry in the transaction history. */
  id: string;
  /**
   * Its history entry's type: cryptoDeposit (found on chain, or credited by an operator),
   * sepaDeposit (a SEPA credit transfer), fiatDeposit (an operator's credit). Absent only from
   * events stored before it was added.
   */
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
