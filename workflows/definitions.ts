import { defineQuery, defineSignal, defineUpdate } from '@temporalio/workflow';
import type { OperationStatus } from '../core/operation-status';
import type { TravelRuleCompletion } from '../core/travel-rule-completion';

export type { TravelRuleCompletion } from '../core/travel-rule-completion';

/**
 * Names shared by the API (which starts, updates, queries and signals workflows) and the
 * workflows themselves. Pure: no I/O, safe in both places.
 */
export const workflowIds = {
  exchange: (exchangeId: string) => `exchange-${exchangeId}`,
  cryptoWithdrawal: (withdrawalId: string) => `crypto-withdrawal-${withdrawalId}`,
  sepaTransfer: (transferId: string) => `sepa-transfer-${transferId}`,
};

/** A partner-facing refusal (insufficient funds, expired lock, …): a normal outcome, not an incident. */
export interface OperationRefusal {
  /** A DomainErrorKind: the API answers the spec's error for it. */
  kind: string;
  message: string;
}

export interface OperationProgress {
  status: OperationStatus;
  /** Finer than status, for operators: RESERVED, AWAITING_TRAVEL_RULE_DATA, BROADCAST, … */
  stage: string;
  failureReason?: string;
  /** Set when the request was refused before any money was held. */
  refusal?: OperationRefusal;
}

/** Answers once the funds are reserved (or with the business error that prevented it). */
export const fundsReservedUpdate = defineUpdate<{ id: string }>('fundsReserved');
export const statusQuery = defineQuery<OperationProgress>('status');

/**
 * Operators or a compliance tool complete a withdrawal's travel-rule data. Validated before it is
 * accepted: who completed it (required) and the IVMS101 beneficiary data; a bad payload is
 * rejected with the reason and leaves no trace in the history. Answers once recorded.
 */
export const completeTravelRuleUpdate = defineUpdate<{ withdrawalId: string; status: OperationStatus }, [TravelRuleCompletion]>(
  'completeTravelRule',
);
/** Kept for senders of the first version: validated the same way; an invalid payload is ignored. */
export const travelRuleDataCompletedSignal = defineSignal<[unknown]>('travelRuleDataCompleted');
