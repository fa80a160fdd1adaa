import { LockMode } from '@mikro-orm/core';
import type { EntityName } from '@mikro-orm/core';
import type { EntityManager } from '@mikro-orm/postgresql';
import { DomainError } from '../../core/errors';
import { OPERATION_TYPE_NAMES, operationOfWorkflowId } from '../../core/operation-types';
import type { OperationType } from '../../core/operation-types';
import { CryptoWithdrawal } from '../entities/crypto-withdrawal.entity';
import { Exchange } from '../entities/exchange.entity';
import { LedgerPosting } from '../entities/ledger-posting.entity';
import { LedgerTransfer } from '../entities/ledger-transfer.entity';
import type { LedgerTransferState } from '../entities/ledger-transfer.entity';
import { OperatorAction } from '../entities/operator-action.entity';
import type { OperatorActionKind, OperatorActionOperationType } from '../entities/operator-action.entity';
import { recordOperatorAction } from './operator-audit.service';
import type { Operator } from './operator-audit.service';
import { SepaTransfer } from '../entities/sepa-transfer.entity';
import { postTransfer, voidTransfer } from '../ledger/ledger';
import { sqlStateOf } from '../sql-errors';

/**
 * What an operator may do to an operation whose workflow is gone (terminated, failed, lost):
 * look it up, and close it by hand — release the hold (only while the money has not been handed
 * to the chain or bank, or after their definite rejection) or settle it (only once handed off).
 * One database transaction per action, with the business row locked and an audit row written.
 */

export type { OperationType };
export type ResolutionAction = Extract<OperatorActionKind, 'release' | 'settle'>;

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** The operation id in `text`: the id itself, or its workflow id (`crypto-withdrawal-<id>`, …). */
export function operationIdFrom(text: string): string {
  const trimmed = text.trim();
  const id = operationOfWorkflowId(trimmed)?.operationId ?? trimmed;
  if (!UUID.test(id)) {
    throw new DomainError(
      'invalid-request',
      `"${text}" is neither an operation id (a UUID) nor a workflow id such as crypto-withdrawal-<UUID>`,
    );
  }
  return id.toLowerCase();
}

/** Why an operator action was refused; the CLI prints it as `reason`. */
export type RefusalReason =
  | 'not-resolvable'
  | 'not-open'
  | 'transfer-not-pending'
  | 'handed-off'
  | 'not-handed-off'
  | 'no-external-reference'
  | 'rejected-externally'
  | 'workflow-running'
  | 'temporal-unreachable'
  | 'not-awaiting-travel-rule-data'
  | 'self-approval'
  | 'already-approved';

export class OperatorActionRefused extends Error {
  override readonly name = 'OperatorActionRefused';

  constructor(
    readonly reason: RefusalReason,
    message: string,
  ) {
    super(message);
  }
}

/** The row each operation type keeps (core/operation-types.ts): a new type does not compile until it is here. */
const OPERATION_ROWS = {
  'crypto-withdrawal': CryptoWithdrawal,
  'sepa-transfer': SepaTransfer,
  exchange: Exchange,
} as const satisfies Record<OperationType, unknown>;
/** Rows an operator may lock to close by hand; an exchange is final in the transaction that makes it. */
const LOCKABLE: ReadonlySet<OperationType> = new Set(['crypto-withdrawal', 'sepa-transfer']);

/** What OPERATION_ROWS holds, as types. */
interface OperationRows {
  'crypto-withdrawal': CryptoWithdrawal;
  'sepa-transfer': SepaTransfer;
  exchange: Exchange;
}

export type OperationRecord = { [Type in OperationType]: { type: Type; row: OperationRows[Type] } }[OperationType];

/** The withdrawal, SEPA transfer or exchange with this id, or null. */
export async function findOperation(em: EntityManager, id: string, options: { lock?: boolean } = {}): Promise<OperationRecord | null> {
  for (const type of OPERATION_TYPE_NAMES) {
    const lockMode = options.lock && LOCKABLE.has(type) ? { lockMode: LockMode.PESSIMISTIC_WRITE } : {};
    const row: unknown = await em.findOne(OPERATION_ROWS[type] as EntityName<{ id: string }>, { id }, { ...lockMode, refresh: true });
    if (row) return { type, row } as OperationRecord;
  }
  return null;
}

export interface LedgerTransferView {
  id: string;
  kind: string;
  state: LedgerTransferState;
  createdAt: string;
  postedAt: string | null;
  voidedAt: string | null;
  /** A voided transfer without postings: nothing was or will be moved under this id. */
  tombstone: boolean;
  postings: { accountId: string; currency: string; amount: string }[];
}

export interface OperatorActionView {
  id: string;
  action: OperatorActionKind;
  actor: string;
  osUser: string | null;
  reason: string | null;
  details: Record<string, unknown> | null;
  createdAt: string;
}

/** The ledger transfer of an operation (same id) with its postings, or null when nothing was held. */
export async function ledgerTransferOf(em: EntityManager, operationId: string): Promise<LedgerTransferView | null> {
  const transfer = await em.findOne(LedgerTransfer, { id: operationId }, { refresh: true });
  if (!transfer) return null;
  const postings = await em.find(LedgerPosting, { transferId: operationId }, { orderBy: { amount: 'asc', accountId: 'asc' } });
  return {
    id: transfer.id,
    kind: transfer.kind,
    state: transfer.state,
    createdAt: transfer.createdAt.toISOString(),
    postedAt: transfer.postedAt?.toISOString() ?? null,
    voidedAt: transfer.voidedAt?.toISOString() ?? null,
    tombstone: transfer.state === 'VOIDED' && postings.length === 0,
    postings: postings.map((posting) => ({ accountId: posting.accountId, currency: posting.currency, amount: posting.amount })),
  };
}

export async function operatorActionsOf(em: EntityManager, operationId: string): Promise<OperatorActionView[]> {
  const actions = await em.find(OperatorAction, { operationId }, { orderBy: { createdAt: 'asc', id: 'asc' } });
  return actions.map((action) => ({
    id: action.id,
    action: action.action,
    actor: action.actor,
    osUser: action.osUser ?? null,
    reason: action.reason ?? null,
    details: action.details ?? null,
    createdAt: action.createdAt.toISOString(),
  }));
}

/** Once set, the money may have left: only the chain's or bank's definite rejection releases it. */
export function isHandedOff(operation: OperationRecord): boolean {
  switch (operation.type) {
    case 'crypto-withdrawal':
      return Boolean(operation.row.handedOffAt || operation.row.transactionHash);
    case 'sepa-transfer':
      return Boolean(operation.row.handedOffAt || operation.row.bankReference);
    case 'exchange':
      return false;
  }
}

/** The transaction hash or bank reference: proof that the chain or bank received it. */
function externalReferenceOf(operation: OperationRecord): string | null | undefined {
  if (operation.type === 'crypto-withdrawal') return operation.row.transactionHash;
  if (operation.type === 'sepa-transfer') return operation.row.bankReference;
  return undefined;
}

export function isOpen(status: string): boolean {
  return status === 'IN_PROGRESS' || status === 'IN_PROGRESS_TR_DATA';
}

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
 * Closes a stuck withdrawal or SEPA transfer in the caller's transaction. `confirmWorkflowClosed`
 * runs with the business row locked and must throw OperatorActionRefused while the operation's
 * workflow could still act on it; what it returns is kept in the audit row.
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
  const transfer = await em.findOne(LedgerTransfer, { id: row.id }, { lockMode: LockMode.PESSIMISTIC_WRITE, refresh: true });
  if (transfer?.state !== 'PENDING') {
    throw new OperatorActionRefused(
      'transfer-not-pending',
      `the ${operation.type} is ${row.status} but its ledger transfer is ${transfer ? transfer.state : 'missing'}, not PENDING: investigate before changing anything`,
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

  const before = { status: row.status, stage: row.stage, ledgerTransferState: transfer.state, handedOff, externalRejection: rejection };
  if (request.action === 'release') {
    await voidHold(em, row.id, now);
    row.status = 'UNSUCCESSFUL';
    // The chain or bank never saw it: FAILED, not REJECTED (which is their answer).
    row.stage = 'FAILED';
    row.failureReason = request.reason;
  } else {
    await postTransfer(em, row.id, now);
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
