import { defineQuery, defineSignal, defineUpdate } from '@temporalio/workflow';
import type { OperationStatus } from '../core/operation-status';

/**
 * Names shared by the API (which starts, updates, queries and signals workflows) and the
 * workflows themselves. Pure: no I/O, safe in both places.
 */
export const workflowIds = {
  exchange: (exchangeId: string) => `exchange-${exchangeId}`,
  cryptoWithdrawal: (withdrawalId: string) => `crypto-withdrawal-${withdrawalId}`,
  sepaTransfer: (transferId: string) => `sepa-transfer-${transferId}`,
};

export interface OperationProgress {
  status: OperationStatus;
  /** Finer than status, for operators: RESERVED, AWAITING_TRAVEL_RULE_DATA, BROADCAST, … */
  stage: string;
  failureReason?: string;
}

/** Answers once the funds are reserved (or with the business error that prevented it). */
export const fundsReservedUpdate = defineUpdate<{ id: string }>('fundsReserved');
export const statusQuery = defineQuery<OperationProgress>('status');
/** Operators or a compliance tool send this when the travel-rule data is complete. */
export const travelRuleDataCompletedSignal = defineSignal<[TravelRuleCompletion?]>('travelRuleDataCompleted');

export interface TravelRuleCompletion {
  /** Free-form beneficiary details gathered out of band (e.g. from the beneficiary's VASP). */
  beneficiary?: Record<string, unknown>;
  completedBy?: string;
}
