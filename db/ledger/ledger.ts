import type { EntityManager } from '@mikro-orm/postgresql';
import type pg from 'pg';
import type { Currency } from '../../core/currencies';
import { DomainError, assertInvariant, isDomainErrorKind } from '../../core/errors';
import type { LedgerTransferKind, LedgerTransferState } from '../entities/ledger-transfer.entity';
import { postgresErrorOf } from '../sql-errors';
import type { SystemAccountCode } from './accounts';

/**
 * The double-entry ledger: one call is one statement of the database functions (ledger_open, ledger_complete), idempotent
 * on the transfer id. The executor is an EntityManager inside the caller's transaction, or a pg pool or client.
 */
export type LedgerExecutor = EntityManager | pg.Pool | pg.ClientBase;

/** A signed movement (negative: out of the account), the account named by id or by system code or partner and currency. */
export type PostingInput =
  | { accountId: string; amount: string }
  | { systemAccount: SystemAccountCode; currency: Currency; amount: string }
  | { partnerId: string; currency: Currency; amount: string };

export interface TransferInput {
  transferId: string;
  kind: LedgerTransferKind;
  postings: readonly PostingInput[];
}

/** CREATED when this call wrote the transfer; EXISTS when a run before it did. */
export type OpenOutcome = 'CREATED' | 'EXISTS';
/** CHANGED when this call posted or voided the hold; UNCHANGED when it already was. */
export type CompleteOutcome = 'CHANGED' | 'UNCHANGED';

/** Holds funds: available drops at once, posted balances move only when the transfer is posted. */
export async function reserveTransfer(executor: LedgerExecutor, input: TransferInput, now: Date): Promise<OpenOutcome> {
  return openTransfer(executor, input, 'PENDING', now);
}

/** Records a transfer that is final at once (deposits, exchanges). */
export async function postTransferDirectly(executor: LedgerExecutor, input: TransferInput, now: Date): Promise<OpenOutcome> {
  return openTransfer(executor, input, 'POSTED', now);
}

/** Settles a reservation; posting an already posted transfer is a no-op. */
export async function postTransfer(executor: LedgerExecutor, transferId: string, now: Date): Promise<CompleteOutcome> {
  return completeTransfer(executor, transferId, 'POSTED', now);
}

/** Releases a reservation; voiding an already voided transfer is a no-op. */
export async function voidTransfer(executor: LedgerExecutor, transferId: string, now: Date): Promise<CompleteOutcome> {
  return completeTransfer(executor, transferId, 'VOIDED', now);
}

async function openTransfer(executor: LedgerExecutor, input: TransferInput, state: 'PENDING' | 'POSTED', now: Date): Promise<OpenOutcome> {
  const outcome = await ledgerStatement(executor, 'ledger_open', 'select ledger_open(?, ?, ?, ?::jsonb, ?) as outcome', [
    input.transferId,
    input.kind,
    state,
    ledgerPostings(input),
    now,
  ]);
  assertInvariant(outcome === 'CREATED' || outcome === 'EXISTS', `ledger_open answered for ${input.transferId}`);
  return outcome;
}

async function completeTransfer(
  executor: LedgerExecutor,
  transferId: string,
  target: 'POSTED' | 'VOIDED',
  now: Date,
): Promise<CompleteOutcome> {
  const outcome = await ledgerStatement(executor, 'ledger_complete', 'select ledger_complete(?, ?, ?) as outcome', [
    transferId,
    target,
    now,
  ]);
  assertInvariant(outcome === 'CHANGED' || outcome === 'UNCHANGED', `ledger_complete answered for ${transferId}`);
  return outcome;
}

/** A transfer's postings as ledger_open reads them (a JSON array), their number bounded. */
export function ledgerPostings(input: TransferInput): string {
  assertInvariant(input.postings.length >= 2 && input.postings.length <= 16, 'a transfer has between two and sixteen postings');
  return JSON.stringify(input.postings.map(postingRecord));
}

/** The JSON record ledger_open reads: a (account id), s (system code), p (partner), c (currency), m (amount, exact text). */
function postingRecord(posting: PostingInput): Record<string, string> {
  if ('accountId' in posting) return { a: posting.accountId, m: posting.amount };
  if ('systemAccount' in posting) return { s: posting.systemAccount, c: posting.currency, m: posting.amount };
  return { p: posting.partnerId, c: posting.currency, m: posting.amount };
}

/** Serialises the attempts of one operation (one that outlived its timeout, and its retry): the second finds the first's work. */
export async function lockOperation(em: EntityManager, operationId: string): Promise<void> {
  // Bounded below the activity's 30 s, so an attempt the workflow gave up on cannot commit much
  // later (and if it does, the tombstone refuses it). The database functions take the same key.
  await em.execute(
    `select set_config('lock_timeout', '20s', true), set_config('statement_timeout', '25s', true),
            pg_advisory_xact_lock(hashtextextended(?, 0))`,
    [operationId],
  );
}

function abandoned(): DomainError {
  return new DomainError('operation-abandoned', 'this operation was given up on before anything was moved; nothing was or will be moved');
}

/**
 * The transfer's state, its row locked to the end of the transaction (undefined: no such transfer): through a function, so
 * that a role which may not update the row (the operator's) can lock it too.
 */
export async function lockTransfer(executor: LedgerExecutor, transferId: string): Promise<LedgerTransferState | undefined> {
  const state = await ledgerStatement(executor, 'ledger_transfer_lock', 'select ledger_transfer_lock(?) as outcome', [transferId]);
  return (state ?? undefined) as LedgerTransferState | undefined;
}

export type TombstoneOutcome = 'TOMBSTONED' | 'MOVED';

/**
 * Gives up on an operation: a voided, empty transfer under its id unless one committed first. TOMBSTONED: nothing was or
 * ever will be moved under this id; MOVED: money was held or posted first.
 */
export async function tombstoneTransfer(executor: LedgerExecutor, transferId: string, kind: LedgerTransferKind): Promise<TombstoneOutcome> {
  const outcome = await ledgerStatement(executor, 'ledger_tombstone', 'select ledger_tombstone(?, ?) as outcome', [transferId, kind]);
  assertInvariant(outcome === 'TOMBSTONED' || outcome === 'MOVED', `ledger_tombstone answered for ${transferId}`);
  return outcome;
}

/** Runs one ledger function, its errors mapped by ledgerError; through pg, prepared once per connection. */
async function ledgerStatement(executor: LedgerExecutor, name: string, sql: string, values: unknown[]): Promise<unknown> {
  try {
    if ('execute' in executor) {
      const rows = await executor.execute<{ outcome: unknown }[]>(sql, values);
      return rows[0]?.outcome;
    }
    const result = await executor.query<{ outcome: unknown }>({ name, text: numberedPlaceholders(sql), values });
    return result.rows[0]?.outcome;
  } catch (error) {
    throw ledgerError(error);
  }
}

/** The database functions' SQLSTATEs in the domain's terms (PP002, PP003, PP010, PP009); anything else as it was. */
export function ledgerError(error: unknown): unknown {
  const postgres = postgresErrorOf(error);
  // Through MikroORM, knex has prefixed the statement and its values to the message: keep only ours.
  if (postgres?.code === 'PP002')
    return new DomainError(
      'insufficient-funds',
      /not enough [a-z]{1,10} available/.exec(postgres.message)?.[0] ?? 'not enough funds available',
    );
  if (postgres?.code === 'PP003') return abandoned();
  // A refusal a database function decided, its kind named by the function.
  if (postgres?.code === 'PP010' && isDomainErrorKind(postgres.detail)) return new DomainError(postgres.detail, postgres.message);
  if (postgres?.code === 'PP009') return new Error(postgres.message, { cause: error });
  return error;
}

/** MikroORM binds `?`; pg binds `$1…`. The ledger's statements hold no other question mark. */
export function numberedPlaceholders(sql: string): string {
  let index = 0;
  return sql.replace(/\?/g, () => `$${++index}`);
}
