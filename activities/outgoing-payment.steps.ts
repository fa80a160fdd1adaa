import { LockMode } from '@mikro-orm/core';
import type { EntityName, FilterQuery } from '@mikro-orm/core';
import type { EntityManager } from '@mikro-orm/postgresql';
import type pg from 'pg';
import { assertInvariant } from '../core/errors';
import { isFinal } from '../core/operation-status';
import type { AbandonOutcome, OperationState, OperationStatus, ReleaseOutcome } from '../core/operation-status';
import type { LedgerTransferKind } from '../db/entities/ledger-transfer.entity';
import { tombstoneTransfer, voidTransfer } from '../db/ledger/ledger';
import { inPgTransaction } from '../db/pg-transaction';
import { findWithHoldState, markHandedOff, settleIfHandedOff } from '../db/queries/outgoing-payment.queries';
import type { OutgoingPaymentTable } from '../db/queries/outgoing-payment.queries';
import type { ActivityDependencies } from './dependencies';
import { activityFailure } from './domain-error.interceptor';

/** The columns every record of money going out shares (crypto withdrawal, SEPA transfer). */
export interface OutgoingPaymentRecord {
  id: string;
  status: OperationStatus;
  stage: string;
  failureReason?: string | null;
  handedOffAt?: Date | null;
  externalRejection?: string | null;
  cancelRequestedAt?: Date | null;
  updatedAt: Date;
}

export interface OutgoingPaymentKind<Record extends OutgoingPaymentRecord> {
  entity: EntityName<Record>;
  /** The entity's table, for the steps' one-statement usual paths. */
  table: OutgoingPaymentTable;
  ledgerKind: LedgerTransferKind;
  /** For messages: "crypto withdrawal", "SEPA transfer". */
  label: string;
  /** Who answers for the money once handed off, for messages: "chain", "bank". */
  rejectedBy: string;
  /** The transaction hash or bank reference: once there is one, the money was handed off. */
  externalReference(record: Record): string | null | undefined;
  /** What else a definite rejection moves in its transaction once the hold is voided (a failed transaction's network fee). */
  afterRejection?(em: EntityManager, record: Record, now: Date): Promise<void>;
  /** The chain's or bank's own word that the money did not leave: a rejection releases only on it, never on the workflow's word. */
  rejectionEvidence(record: Record): Promise<string | undefined>;
}

type ClosingStage = 'SETTLED' | 'FAILED' | 'REJECTED' | 'CANCELLED';

/**
 * The money-moving steps every outgoing payment shares (workflows/outgoing-payment.ts), each safe to run twice. Releases happen
 * only before the hand-off or on the chain's or bank's definite rejection; the database's void guard refuses anything else too.
 */
export function outgoingPaymentSteps<Record extends OutgoingPaymentRecord>(
  deps: Pick<ActivityDependencies, 'orm' | 'pool' | 'clock'>,
  kind: OutgoingPaymentKind<Record>,
) {
  const inTransaction = <T>(work: (em: EntityManager) => Promise<T>) => deps.orm.em.fork().transactional(work);
  const lock = async (em: EntityManager, id: string): Promise<Record> => {
    const record = await em.findOne(kind.entity, { id } as FilterQuery<Record>, { lockMode: LockMode.PESSIMISTIC_WRITE });
    assertInvariant(record, `${kind.label} ${id} exists`);
    return record;
  };
  const isHandedOff = (record: Record): boolean => Boolean(record.handedOffAt || kind.externalReference(record));
  /** Before the hand-off only: a Reset or a retry that re-decides to fail must not refund money that may have left. */
  const releaseLocked = async (em: EntityManager, id: string, reason: string, stage: 'FAILED' | 'CANCELLED'): Promise<ReleaseOutcome> => {
    const record = await lock(em, id);
    if (record.status === 'UNSUCCESSFUL') return 'RELEASED';
    if (record.status === 'SUCCESSFUL' || isHandedOff(record)) return 'HANDED_OFF';
    await voidTransfer(em, id, deps.clock.now());
    close(record, 'UNSUCCESSFUL', stage, reason);
    await em.flush();
    return 'RELEASED';
  };
  const close = (
    record: OutgoingPaymentRecord,
    status: 'SUCCESSFUL' | 'UNSUCCESSFUL',
    stage: ClosingStage,
    failureReason: string | null,
  ): void => {
    record.status = status;
    record.stage = stage;
    record.failureReason = failureReason;
    record.updatedAt = deps.clock.now();
  };

  /** Open with its funds held: a closed one (settled, released, resolved by hand) is never sent. */
  const closedOf = (record: OperationState, holdState: string | null | undefined): OperationState | undefined =>
    isFinal(record.status) || holdState !== 'PENDING' ? { status: record.status, stage: record.stage } : undefined;
  const handOverOf = (record: Record, holdState: string | null): { record: Record } | { closed: OperationState } => {
    const closed = closedOf(record, holdState);
    if (closed) return { closed };
    assertInvariant(isHandedOff(record), `${kind.label} ${record.id} was marked handed off before it is sent`);
    return { record: { ...record } };
  };

  return {
    isHandedOff,

    /**
     * Records the hand-off before the chain or bank is called; from its commit on only their answer may release the money.
     * What keeps it back is the database's word (markHandedOff): a closed payment answers `closed`; anything else unmet is a
     * plain error, retried, with no release: it is not the payment's own workflow that is wrong.
     */
    async markHandOff(
      id: string,
      options: { stage?: string; denyList?: readonly string[] } = {},
    ): Promise<'MARKED' | { closed: OperationState }> {
      const now = deps.clock.now();
      const outcome = await markHandedOff(deps.pool, kind.table, {
        id,
        stage: options.stage ?? null,
        now,
        denyList: options.denyList ?? [],
      });
      if (outcome === 'MARKED') return 'MARKED';
      const closed = closedOf(outcome, outcome.holdState);
      if (closed) return { closed };
      throw new Error(`${kind.label} ${id} cannot be handed off: ${outcome.unmet ?? 'it changed while being marked; asked again'}`);
    },

    /** The record to hand over once marked, or `closed`. Unlocked: once handed off only the chain's or bank's answer closes it. */
    async recordToHandOver(id: string): Promise<{ record: Record } | { closed: OperationState }> {
      const found = await findWithHoldState(deps.pool, kind.table, id);
      assertInvariant(found, `${kind.label} ${id} exists`);
      const record: Record = deps.orm.em.fork().map<Record>(kind.entity, found.row as never);
      return handOverOf(record, found.holdState);
    },

    /** What recordToHandOver answers for a record and its hold's state, read by the caller (with more beside it). */
    handOverOf,

    /**
     * After a reservation whose outcome is unknown (retries ran out, or cancelled): a tombstone so a late attempt can never
     * commit, or the hold released if the reservation committed first.
     */
    async abandon(id: string, reason: string): Promise<AbandonOutcome> {
      return inTransaction(async (em) => {
        if ((await tombstoneTransfer(em, id, kind.ledgerKind)) === 'TOMBSTONED') return 'NOTHING_MOVED';
        return (await releaseLocked(em, id, reason, 'FAILED')) === 'RELEASED' ? 'NOTHING_MOVED' : 'HANDED_OFF';
      });
    },

    release: (id: string, reason: string, stage: 'FAILED' | 'CANCELLED'): Promise<ReleaseOutcome> =>
      inTransaction((em) => releaseLocked(em, id, reason, stage)),

    /**
     * Posts the reservation and closes the record, one statement (settleIfHandedOff); the ledger refuses a voided one.
     * `alongside` runs in the same transaction, only when this call settles.
     */
    async settle(id: string, alongside?: (client: pg.ClientBase, now: Date) => Promise<unknown>): Promise<void> {
      const now = deps.clock.now();
      const settled = alongside
        ? await inPgTransaction(deps.pool, async (client) => {
            if (!(await settleIfHandedOff(client, kind.table, id, now))) return false;
            await alongside(client, now);
            return true;
          })
        : await settleIfHandedOff(deps.pool, kind.table, id, now);
      if (settled) return;
      // Nothing matched: settled by an earlier run, or in a state no settlement may follow (read
      // after the statement, which only this workflow's own steps could have changed since).
      const record = await deps.orm.em.fork().findOne(kind.entity, { id } as FilterQuery<Record>);
      assertInvariant(record, `${kind.label} ${id} exists`);
      if (record.status === 'SUCCESSFUL') return;
      throw conflict(`${kind.label} ${id} is ${record.status} and ${isHandedOff(record) ? '' : 'not '}handed off: it cannot be settled`);
    },

    /** The chain's or bank's definite answer that the money did not leave: records it and releases, in one transaction. */
    async reject(id: string, reason: string): Promise<void> {
      const seen = await deps.orm.em.fork().findOne(kind.entity, { id } as FilterQuery<Record>);
      assertInvariant(seen, `${kind.label} ${id} exists`);
      if (seen.status === 'UNSUCCESSFUL') return;
      // Asked outside the transaction (the bank may be slow); what the record says is checked again under the lock.
      const evidence = await kind.rejectionEvidence(seen);
      if (evidence === undefined) {
        throw conflict(`${kind.label} ${id}: the ${kind.rejectedBy} has not rejected it (${reason.slice(0, 200)}?); nothing released`);
      }
      await inTransaction(async (em) => {
        const record = await lock(em, id);
        if (record.status === 'UNSUCCESSFUL') return;
        if (record.status === 'SUCCESSFUL') throw conflict(`${kind.label} ${id} is settled: a rejection cannot release it`);
        // Handed over since the evidence was read (another run of the hand-off): that evidence is stale.
        if (kind.externalReference(record) !== kind.externalReference(seen))
          throw conflict(`${kind.label} ${id} was handed to the ${kind.rejectedBy} while its rejection was read; nothing released`);
        record.externalRejection = evidence;
        // Flushed first: the database lets the void through only once the rejection is stored.
        await em.flush();
        const now = deps.clock.now();
        await voidTransfer(em, id, now);
        close(record, 'UNSUCCESSFUL', 'REJECTED', evidence);
        await em.flush();
        await kind.afterRejection?.(em, record, now);
      });
    },

    /** An operator asked to cancel after the hand-off: noted; the money waits for the answer. */
    async recordCancellation(id: string): Promise<void> {
      await inTransaction(async (em) => {
        const record = await lock(em, id);
        record.cancelRequestedAt ??= deps.clock.now();
        await em.flush();
      });
    },
  };
}

/** Contradicting answers (settle what was released, …): no retry can fix that, so the workflow fails visibly, money untouched. */
function conflict(message: string): Error {
  return activityFailure('operation-conflict', message);
}
