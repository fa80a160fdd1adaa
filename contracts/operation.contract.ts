import { defineQuery, defineUpdate } from '@temporalio/workflow';
import type { Workflow } from '@temporalio/common';
import type { OperationStatus } from '../core/operation-status';

/**
 * What every money-moving workflow shares with the API, the activities, the operator tools and
 * the tests. Pure: definitions and types only, safe in workflow code.
 */

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

/** Answers once the funds are reserved (or with the refusal that prevented it). */
export const fundsReservedUpdate = defineUpdate<{ id: string }>('fundsReserved');
export const statusQuery = defineQuery<OperationProgress>('status');

/**
 * How the activity that asks the chain or the bank for its answer polls (activities/answer-polling.ts):
 * with backoff from the first to the longest interval, for at most one window, after which it
 * answers PENDING and the workflow asks again later. Shared so the workflow's timeouts fit it.
 */
export const ANSWER_POLLING = { windowMs: 20_000, firstIntervalMs: 250, backoffCoefficient: 1.5, longestIntervalMs: 5_000 } as const;
export type AnswerPollingSchedule = { readonly [K in keyof typeof ANSWER_POLLING]: number };

/**
 * A workflow as its callers know it: its registered name and its id scheme (the id is the
 * business key). The type parameter is the workflow's signature, so a start through the
 * contract type-checks its arguments and its result.
 */
export interface WorkflowContract<W extends Workflow> {
  readonly workflowType: string;
  workflowId(operationId: string): string;
  /** Never set: carries the signature for the type checker. */
  readonly signature?: W;
}
