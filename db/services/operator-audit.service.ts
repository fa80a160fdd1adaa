import { randomUUID } from 'node:crypto';
import type { EntityManager } from '@mikro-orm/postgresql';
import { redactSecrets } from '../../core/secret-redaction';
import { OperatorAction } from '../entities/operator-action.entity';
import type { OperatorActionKind, OperatorActionOperationType, OperatorActionSubjectType } from '../entities/operator-action.entity';
import { UUID } from '../../core/uuid';

/** Who ran a command: the name they gave (or OPS_OPERATOR, or their login) and the OS account that ran it. */
export interface Operator {
  actor: string;
  osUser: string;
}

export type AuditSubject =
  | { type: Exclude<OperatorActionSubjectType, 'operation'>; id: string; partnerId: string | null }
  | { type: 'operation'; id: string; operationType: OperatorActionOperationType; partnerId: string };

export interface AuditEntry {
  action: OperatorActionKind;
  subject: AuditSubject;
  reason?: string | null;
  /** Names and ids of what was done; keys that name a secret are redacted whatever they hold. */
  details?: Record<string, unknown>;
}

export async function recordOperatorAction(em: EntityManager, operator: Operator, entry: AuditEntry, now: Date): Promise<string> {
  const { subject } = entry;
  const action = em.create(OperatorAction, {
    id: randomUUID(),
    action: entry.action,
    actor: operator.actor,
    osUser: operator.osUser,
    subjectType: subject.type,
    subjectId: subject.id,
    partnerId: subject.partnerId,
    operationId: subject.type === 'operation' ? subject.id : null,
    operationType: subject.type === 'operation' ? subject.operationType : null,
    reason: entry.reason ?? null,
    details: entry.details === undefined ? null : (redactSecrets(entry.details) as Record<string, unknown>),
    createdAt: now,
  });
  await em.flush();
  return action.id;
}

/** The CLI command that writes each action a workflow may consume: what a refusal tells the sender to use. */
const COMMAND_OF: Partial<Record<OperatorActionKind, string>> = { 'travel-rule-complete': 'npm run ops -- travel-rule complete' };

export interface OperatorActionRequest {
  actionId: string;
  action: string;
  operationId: string;
}

/**
 * Consumes the audit row an operator Update or Signal names (only the CLI writes one): that action on that operation, not
 * used by another; the same operation using it again gets the same answer.
 */
export async function consumeOperatorAction(
  em: EntityManager,
  request: OperatorActionRequest,
): Promise<{ details: Record<string, unknown> } | { refused: string }> {
  const use = `use ${COMMAND_OF[request.action as OperatorActionKind] ?? 'npm run ops'}`;
  if (!UUID.test(request.actionId)) return { refused: `no operator action names this request (operatorActionId must be a UUID): ${use}` };
  const [row] = await em.execute<Array<{ action: string; operation_id: string | null; details: Record<string, unknown> | null }>>(
    'select action, operation_id, details from operator_action where id = ?',
    [request.actionId],
  );
  if (!row) return { refused: `no operator action ${request.actionId} was recorded: ${use}` };
  if (row.action !== request.action) {
    return { refused: `operator action ${request.actionId} is a ${row.action}, not a ${request.action}: ${use}` };
  }
  if (row.operation_id !== request.operationId.toLowerCase()) {
    return {
      refused: `operator action ${request.actionId} was recorded for ${row.operation_id ?? 'no operation'}, not for ${request.operationId}: ${use}`,
    };
  }
  // Waits for a concurrent use of the same row to commit or roll back, then sees it.
  await em.execute('insert into operator_action_use (action_id, operation_id) values (?, ?) on conflict (action_id) do nothing', [
    request.actionId,
    request.operationId.toLowerCase(),
  ]);
  const [used] = await em.execute<Array<{ operation_id: string }>>('select operation_id from operator_action_use where action_id = ?', [
    request.actionId,
  ]);
  if (used?.operation_id !== request.operationId.toLowerCase()) {
    return { refused: `operator action ${request.actionId} was already used by ${used?.operation_id ?? 'another operation'}: ${use}` };
  }
  return { details: row.details ?? {} };
}
