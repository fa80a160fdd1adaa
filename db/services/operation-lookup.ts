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
import type { OperatorActionKind } from '../entities/operator-action.entity';
import { SepaTransfer } from '../entities/sepa-transfer.entity';
import { UUID } from '../../core/uuid';

export type { OperationType };
export type ResolutionAction = Extract<OperatorActionKind, 'release' | 'settle'>;

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

/** The row each operation type keeps (core/operation-types.ts): a new type does not compile until it is here. */
const OPERATION_ROWS = {
  'crypto-withdrawal': CryptoWithdrawal,
  'sepa-transfer': SepaTransfer,
  exchange: Exchange,
} as const satisfies Record<OperationType, unknown>;
/** Rows an operator may lock to close by hand; an exchange is final in the transaction that makes it. */
const LOCKABLE: ReadonlySet<OperationType> = new Set(['crypto-withdrawal', 'sepa-transfer']);

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

export function isOpen(status: string): boolean {
  return status === 'IN_PROGRESS' || status === 'IN_PROGRESS_TR_DATA';
}
