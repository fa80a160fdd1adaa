import type { EntityManager } from '@mikro-orm/postgresql';
import { DomainError } from '../../core/errors';
import type { LedgerTransferState } from '../../db/entities/ledger-transfer.entity';
import type { OperatorActionOperationType } from '../../db/entities/operator-action.entity';
import { lockTransfer, postTransfer, voidTransfer } from '../../db/ledger/ledger';
import { postNetworkFeePaid } from '../../db/services/network-fee-paid.service';
import { findOperation, isHandedOff, isOpen } from '../../db/services/operation-lookup';
import type { OperationRecord, ResolutionAction } from '../../db/services/operation-lookup';
import { recordOperatorAction } from '../../db/services/operator-audit.service';
import type { Operator } from '../../db/services/operator-audit.service';
import { sqlStateOf } from '../../db/sql-errors';
import { OperatorActionRefused } from './operator-refusal';

export interface ResolutionRequest extends Operator {
  operationId: string;
  action: ResolutionAction;
  reason: string;
}

export interface ResolutionOutcome {
  operationId: string;
  operationType: OperatorActionOperationType;
  action: ResolutionAction;
  status: 'SUCCESSFUL' | 'UNSUCCESSFUL';
  stage: string;
  ledgerTransferState: LedgerTransferState;
  operatorActionId: string;
  actor: string;
}

/**
 * Closes a withdrawal or SEPA transfer whose workflow is gone: release (only before the hand-off, or after a definite
 * rejection) or settle (only once handed off). `confirmWorkflowClosed` runs with the row locked and must throw
 * OperatorActionRefused while the workflow could still act; what it returns goes into the audit row.
 */
export async function resolveOperation(
  em: EntityManager,
  request: ResolutionRequest,
  now: Date,
  confirmWorkflowClosed: (operation: { type: OperatorActionOperationType; id: string }) => Promise<Record<string, unknown>>,
): Promise<ResolutionOutcome> {
  const operation = await findOperation(em, request.operationId, { lock: true });
  if (!operation) throw new DomainError('not-found', `no crypto withdrawal, SEPA transfer or exchange has the id ${request.operationId}`);
  if (operation.type === 'exchange') {
    throw new OperatorActionRefused('not-resolvable', 'an exchange is final in the transaction that makes it: there is nothing to resolve');
  }
  const { row } = operation;
  if (!isOpen(row.status)) {
    throw new OperatorActionRefused('not-open', `the ${operation.type} is already ${row.status} (stage ${row.stage}): nothing to resolve`);
  }
  const transferState = await lockTransfer(em, row.id);
  if (transferState !== 'PENDING') {
    throw new OperatorActionRefused(
      'transfer-not-pending',
      `the ${operation.type} is ${row.status} but its ledger transfer is ${transferState ?? 'missing'}, not PENDING: investigate before changing anything`,
    );
  }
  const handedOff = isHandedOff(operation);
  const rejection = row.externalRejection ?? null;
  if (request.action === 'release' && handedOff && !rejection) {
    throw new OperatorActionRefused(
      'handed-off',
      `the ${operation.type} was handed to the ${operation.type === 'crypto-withdrawal' ? 'chain' : 'bank'}; the money may have left, so its hold cannot be released. ` +
        'Settle it once the transfer is confirmed, or wait for a definite rejection.',
    );
  }
  if (request.action === 'settle' && !handedOff) {
    throw new OperatorActionRefused(
      'not-handed-off',
      `the ${operation.type} was never handed off: the money never left, release it instead`,
    );
  }
  if (request.action === 'settle' && !externalReferenceOf(operation)) {
    // Marked, but the chain or bank may never have received it: nothing proves the money left.
    throw new OperatorActionRefused(
      'no-external-reference',
      `the ${operation.type} has no ${operation.type === 'crypto-withdrawal' ? 'transaction hash' : 'bank reference'} yet: it may never have reached the ` +
        `${operation.type === 'crypto-withdrawal' ? 'chain' : 'bank'}. Reset its workflow instead: the re-run sends it again idempotently and follows the answer.`,
    );
  }
  if (request.action === 'settle' && rejection) {
    throw new OperatorActionRefused(
      'rejected-externally',
      `the ${operation.type} was definitely rejected (${rejection}): release it instead`,
    );
  }
  const workflow = await confirmWorkflowClosed({ type: operation.type, id: row.id });

  const before = { status: row.status, stage: row.stage, ledgerTransferState: transferState, handedOff, externalRejection: rejection };
  if (request.action === 'release') {
    await voidHold(em, row.id, now);
    row.status = 'UNSUCCESSFUL';
    // The chain or bank never saw it: FAILED, not REJECTED (which is their answer).
    row.stage = 'FAILED';
    row.failureReason = request.reason;
  } else {
    await postTransfer(em, row.id, now);
    // What its transaction paid the network, when the chain's answer was heard and stored before the workflow stopped.
    if (operation.type === 'crypto-withdrawal') await postNetworkFeePaid(em, operation.row, now);
    row.status = 'SUCCESSFUL';
    row.stage = 'SETTLED';
    row.failureReason = null;
  }
  // The ledger changed the transfer in the database; the entity loaded above still says PENDING.
  const ledgerTransferState: LedgerTransferState = request.action === 'release' ? 'VOIDED' : 'POSTED';
  row.updatedAt = now;
  const operatorActionId = await recordOperatorAction(
    em,
    { actor: request.actor, osUser: request.osUser },
    {
      action: request.action,
      subject: { type: 'operation', id: row.id, operationType: operation.type, partnerId: row.partnerId },
      reason: request.reason,
      details: { before, after: { status: row.status, stage: row.stage, ledgerTransferState }, workflow },
    },
    now,
  );
  return {
    operationId: row.id,
    operationType: operation.type,
    action: request.action,
    status: row.status,
    stage: row.stage,
    ledgerTransferState,
    operatorActionId,
    actor: request.actor,
  };
}

/** The database refuses (SQLSTATE PP001) to void a handed-off operation's transfer: say so plainly. */
async function voidHold(em: EntityManager, id: string, now: Date): Promise<void> {
  try {
    await voidTransfer(em, id, now);
  } catch (error) {
    if (sqlStateOf(error) === 'PP001') {
      throw new OperatorActionRefused('handed-off', 'the database refused to release a hold whose money was handed off');
    }
    throw error;
  }
}

/** The transaction hash or bank reference: proof that the chain or bank received it. */
function externalReferenceOf(operation: OperationRecord): string | null | undefined {
  if (operation.type === 'crypto-withdrawal') return operation.row.transactionHash;
  if (operation.type === 'sepa-transfer') return operation.row.bankReference;
  return undefined;
}
