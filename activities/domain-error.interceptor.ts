import { DriverException } from '@mikro-orm/core';
import { ApplicationFailure, ApplicationFailureCategory } from '@temporalio/common';
import type { ActivityExecuteInput, ActivityInboundCallsInterceptor, Next } from '@temporalio/worker';
import { ACTIVITY_FAILURES, DOMAIN_ERRORS, DomainError } from '../core/errors';
import type { ActivityFailureType } from '../core/errors';
import { isDatabaseUnavailable } from '../db/connection-settings';
import { errorChain, sqlStateOf } from '../db/sql-errors';

/**
 * Every activity's errors leave in one shape: a DomainError becomes a non-retryable failure typed by its kind; data the
 * database refuses (SQLSTATE class 22) fails the same every time, so non-retryable too; anything else stays retryable.
 * Messages never carry SQL or its values. Refusals and answers not there yet are BENIGN: the SDK logs them at debug and
 * leaves them out of its failure metrics, so a warning from an activity means something.
 */
export class DomainErrorInterceptor implements ActivityInboundCallsInterceptor {
  async execute(input: ActivityExecuteInput, next: Next<ActivityInboundCallsInterceptor, 'execute'>): Promise<unknown> {
    try {
      return await next(input);
    } catch (error) {
      throw toActivityFailure(error);
    }
  }
}

export function toActivityFailure(error: unknown): unknown {
  if (error instanceof DomainError) {
    return ApplicationFailure.create({
      type: error.kind,
      message: error.detail ?? error.kind,
      nonRetryable: true,
      ...(DOMAIN_ERRORS[error.kind].refusal ? { category: ApplicationFailureCategory.BENIGN } : {}),
    });
  }
  const sqlState = sqlStateOf(error);
  if (sqlState?.startsWith('22')) {
    return ApplicationFailure.create({
      type: 'invalid-request',
      message: `the database refused the operation's data (SQLSTATE ${sqlState})`,
      nonRetryable: true,
    });
  }
  // A statement's text and values must not reach Temporal's history or the logs: only the SQLSTATE and constraint leave.
  if (isDatabaseUnavailable(error)) {
    return ApplicationFailure.create({
      type: 'database-unavailable',
      message: `the database was unavailable or too slow${sqlState ? ` (SQLSTATE ${sqlState})` : ''}; retried`,
    });
  }
  // Anything MikroORM or knex threw carries the statement in its message: same treatment.
  if (sqlState !== undefined || error instanceof DriverException) {
    const constraint = constraintOf(error);
    return ApplicationFailure.create({
      type: 'database-error',
      message: `a database statement failed (SQLSTATE ${sqlState ?? 'unknown'}${constraint ? `, constraint ${constraint}` : ''}${sqlState ? '' : `; ${errorKinds(error)}`})`,
    });
  }
  return error;
}

/** The error classes along the chain (names only, never a message): what an unclassified error was. */
function errorKinds(error: unknown): string {
  return [...errorChain(error)]
    .map((each) => (each as { constructor?: { name?: unknown } }).constructor?.name)
    .filter((name): name is string => typeof name === 'string' && /^[A-Za-z0-9_]{1,64}$/.test(name))
    .join(' < ');
}

/** The violated constraint's name (a schema name, never data), wherever the wrappers keep it. */
function constraintOf(error: unknown): string | undefined {
  for (const each of errorChain(error)) {
    const { constraint } = each as { constraint?: unknown };
    if (typeof constraint === 'string' && /^[a-z0-9_]{1,63}$/.test(constraint)) return constraint;
  }
  return undefined;
}

/** A failure from the catalogue (core/errors.ts), retryable or not as the catalogue says. */
export function activityFailure(type: ActivityFailureType, message: string): ApplicationFailure {
  const { retryable } = ACTIVITY_FAILURES[type];
  // A retryable one is "not yet" (not-confirmed-yet, bank-answer-pending): the retry policy is the poll loop.
  return ApplicationFailure.create({
    type,
    message,
    nonRetryable: !retryable,
    ...(retryable ? { category: ApplicationFailureCategory.BENIGN } : {}),
  });
}
