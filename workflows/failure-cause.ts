import { ActivityFailure, ApplicationFailure } from '@temporalio/workflow';
import { REFUSAL_TYPES, DEFINITE_FAILURE_TYPES } from './activity-options';
import type { OperationRefusal } from '../contracts';
import type { DomainErrorKind } from '../core/errors';

const UNKNOWN_OPERATION: DomainErrorKind = 'unknown-operation';

/** Fails the workflow with the refusal itself, not the activity wrapper around it. */
export function failureCause(error: unknown): unknown {
  if (error instanceof ActivityFailure && error.cause instanceof ApplicationFailure) return error.cause;
  return error;
}

/** A refusal with a partner-facing reason (insufficient funds, …), as opposed to a fault of ours. */
export function isRefusal(cause: unknown): cause is ApplicationFailure {
  return cause instanceof ApplicationFailure && REFUSAL_TYPES.includes(cause.type ?? '');
}

/** The chain or the bank said for certain that the money did not leave. */
export function isDefiniteFailure(cause: unknown): cause is ApplicationFailure {
  return cause instanceof ApplicationFailure && DEFINITE_FAILURE_TYPES.includes(cause.type ?? '');
}

/** Refused as no operation the API accepted (activities/accepted-operation.guard.ts): nothing was held. */
export function isUnknownOperation(cause: unknown): cause is ApplicationFailure {
  return cause instanceof ApplicationFailure && cause.type === UNKNOWN_OPERATION;
}

export function refusalOf(cause: ApplicationFailure): OperationRefusal {
  return { kind: cause.type ?? 'internal-error', message: cause.message };
}

/** Why an operation ended, as operators read it in the OperationStage search attribute. */
export function refusalStage(refusal: OperationRefusal): string {
  if (refusal.kind === 'operation-abandoned') return 'ABANDONED';
  return `REFUSED_${refusal.kind.toUpperCase().replace(/-/g, '_')}`;
}
