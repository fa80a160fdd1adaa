import { defineQuery, defineUpdate } from '@temporalio/workflow';
import type { Workflow } from '@temporalio/common';
import type { OperationStatus } from '../core/operation-status';

// Pure (definitions and types only): workflow code imports it.

/** A partner-facing refusal (insufficient funds, expired lock, …): a normal outcome, not an incident. */
export interface OperationRefusal {
  /** A DomainErrorKind. */
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

/** How activities/answer-polling.ts polls the chain or bank before answering PENDING; shared so the workflow's timeouts fit it. */
export const ANSWER_POLLING = { windowMs: 20_000, firstIntervalMs: 250, backoffCoefficient: 1.5, longestIntervalMs: 5_000 } as const;
export type AnswerPollingSchedule = { readonly [K in keyof typeof ANSWER_POLLING]: number };

/** A workflow's registered name and id scheme (the id is the business key); W type-checks a start's arguments and result. */
export interface WorkflowContract<W extends Workflow> {
  readonly workflowType: string;
  workflowId(operationId: string): string;
  /** Never set: carries the signature for the type checker. */
  readonly signature?: W;
}
