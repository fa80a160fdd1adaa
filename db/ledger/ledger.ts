import { randomUUID } from 'node:crypto';
import { LockMode } from '@mikro-orm/core';
import type { EntityManager } from '@mikro-orm/postgresql';
import { DomainError, assertInvariant } from '../../core/errors';
import { Decimal } from '../../core/money';
import { Account } from '../entities/account.entity';
import { LedgerPosting } from '../entities/ledger-posting.entity';
import { LedgerTransfer } from '../entities/ledger-transfer.entity';
import type { LedgerTransferKind } from '../entities/ledger-transfer.entity';

/**
 * The double-entry ledger. Every function takes an EntityManager that is already inside a
 * transaction, so the caller can store its business record in the same commit. Each one is
 * idempotent on the transfer id: running a step twice never moves money twice.
 *
 * Balances: available = posted − pending out. Accounts are locked in id order (FOR UPDATE), so
 * concurrent transfers serialise per account without deadlocks, and a CHECK in the schema
 * refuses any partner balance below zero should this code ever be wrong.
 */

/** A signed movement: negative takes money out of the account, positive puts it in. */
export interface PostingInput {
  accountId: string;
  amount: string;
}

export interface TransferInput {
  transferId: string;
  kind: LedgerTransferKind;
  postings: readonly PostingInput[];
}

/** Holds funds: available drops at once, posted balances move only when the transfer is posted. */
export async function reserveTransfer(em: EntityManager, input: TransferInput, now: Date): Promise<LedgerTransfer> {
  const existing = await findExistingTransfer(em, input);
  if (existing) return existing;
  const accounts = await lockAccounts(
    em,
    input.postings.map((posting) => posting.accountId),
  );
  const postings = preparePostings(input, accounts);
  for (const { account, amount } of postings) {
    if (amount.isNegative()) account.pendingOutAmount = new Decimal(account.pendingOutAmount).minus(amount).toFixed();
    else account.pendingInAmount = new Decimal(account.pendingInAmount).plus(amount).toFixed();
  }
  assertFundsAvailable(postings.map(({ account }) => account));
  return persistTransfer(em, input, postings, 'PENDING', now);
}

/** Records a transfer that is final at once (deposits, exchanges). */
export async function postTransferDirectly(em: EntityManager, input: TransferInput, now: Date): Promise<LedgerTransfer> {
  const existing = await findExistingTransfer(em, input);
  if (existing) return existing;
  const accounts = await lockAccounts(
    em,
    input.postings.map((posting) => posting.accountId),
  );
  const postings = preparePostings(input, accounts);
  for (const { account, amount } of postings) {
    account.postedAmount = new Decimal(account.postedAmount).plus(amount).toFixed();
  }
  assertFundsAvailable(postings.map(({ account }) => account));
  return persistTransfer(em, input, postings, 'POSTED', now);
}

/** Settles a reservation; posting an already posted transfer is a no-op. */
export async function postTransfer(em: EntityManager, transferId: string, now: Date): Promise<LedgerTransfer> {
  return completeTransfer(em, transferId, 'POSTED', now);
}

/** Releases a reservation; voiding an already voided transfer is a no-op. */
export async function voidTransfer(em: EntityManager, transferId: string, now: Date): Promise<LedgerTransfer> {
  return completeTransfer(em, transferId, 'VOIDED', now);
}

export function availableAmount(account: Pick<Account, 'postedAmount' | 'pendingOutAmount'>): Decimal {
  return new Decimal(account.postedAmount).minus(account.pendingOutAmount);
}

async function completeTransfer(
  em: EntityManager,
  transferId: string,
  targetState: 'POSTED' | 'VOIDED',
  now: Date,
): Promise<LedgerTransfer> {
  const transfer = await em.findOne(LedgerTransfer, { id: transferId }, { lockMode: LockMode.PESSIMISTIC_WRITE });
  assertInvariant(transfer, `ledger transfer ${transferId} exists`);
  if (transfer.state === targetState) return transfer;
  // A settled transfer cannot be released, nor a released one settled: that would be a bug upstream.
  assertInvariant(transfer.state === 'PENDING', `transfer ${transferId} is ${transfer.state}, cannot become ${targetState}`);
  const postings = await em.find(LedgerPosting, { transferId }, { orderBy: { accountId: 'asc' } });
  const accounts = await lockAccounts(
    em,
    postings.map((posting) => posting.accountId),
  );
  for (const posting of postings) {
    const account = accounts.get(posting.accountId);
    assertInvariant(account, `account ${posting.accountId} of transfer ${transferId} exists`);
    const amount = new Decimal(posting.amount);
    if (amount.isNegative()) account.pendingOutAmount = new Decimal(account.pendingOutAmount).plus(amount).toFixed();
    else account.pendingInAmount = new Decimal(account.pendingInAmount).minus(amount).toFixed();
    if (targetState === 'POSTED') account.postedAmount = new Decimal(account.postedAmount).plus(amount).toFixed();
    assertInvariant(
      !new Decimal(account.pendingOutAmount).isNegative() && !new Decimal(account.pendingInAmount).isNegative(),
      `pending amounts of account ${account.id} stay non-negative`,
    );
  }
  transfer.state = targetState;
  if (targetState === 'POSTED') transfer.postedAt = now;
  else transfer.voidedAt = now;
  await em.flush();
  return transfer;
}

async function findExistingTransfer(em: EntityManager, input: TransferInput): Promise<LedgerTransfer | null> {
  const existing = await em.findOne(LedgerTransfer, { id: input.transferId });
  if (existing) {
    assertInvariant(existing.kind === input.kind, `transfer ${input.transferId} re-run with the same kind`);
    // Callers look for their business record first, so a transfer without one is a tombstone:
    // the operation was given up on and must never move money.
    if (existing.state === 'VOIDED') throw abandoned();
  }
  return existing;
}

/**
 * Serialises the attempts of one operation (an attempt that outlived its timeout and its retry):
 * the second waits until the first has committed or rolled back, then finds its work, instead of
 * judging the balance or the lock on what the first one is about to change.
 */
export async function lockOperation(em: EntityManager, operationId: string): Promise<void> {
  // Bounded below the activity's 30 s, so an attempt the workflow gave up on cannot commit much
  // later (and if it does, the tombstone refuses it).
  await em.execute(`select set_config('lock_timeout', '20s', true), set_config('statement_timeout', '25s', true)`);
  await em.execute('select pg_advisory_xact_lock(hashtextextended(?, 0))', [operationId]);
}

/** Refuses early, before any other check, an operation that was given up on (see tombstoneTransfer). */
export async function assertNotAbandoned(em: EntityManager, transferId: string): Promise<void> {
  const existing = await em.findOne(LedgerTransfer, { id: transferId });
  if (existing?.state === 'VOIDED') throw abandoned();
}

function abandoned(): DomainError {
  return new DomainError('operation-abandoned', 'this operation was given up on before anything was moved; nothing was or will be moved');
}

export type TombstoneOutcome = 'TOMBSTONED' | 'MOVED';

/**
 * Gives up on an operation: writes a voided, empty transfer under its id unless one committed
 * first (the database function waits for a concurrent reservation of the id to end). TOMBSTONED
 * means nothing was and nothing ever will be moved under this id; MOVED that money was held or
 * posted first. One statement, shared with the API (db/queries/ledger-tombstone.queries.ts).
 */
export async function tombstoneTransfer(em: EntityManager, transferId: string, kind: LedgerTransferKind): Promise<TombstoneOutcome> {
  const rows = await em.execute<{ outcome: TombstoneOutcome }[]>('select ledger_tombstone(?, ?) as outcome', [transferId, kind]);
  const outcome = rows[0]?.outcome;
  assertInvariant(outcome === 'TOMBSTONED' || outcome === 'MOVED', `ledger_tombstone answered for ${transferId}`);
  return outcome;
}

/** Locks the accounts in id order: the same order everywhere, so no two transfers deadlock. */
async function lockAccounts(em: EntityManager, accountIds: readonly string[]): Promise<Map<string, Account>> {
  const uniqueIds = [...new Set(accountIds)].sort();
  const accounts = await em.find(
    Account,
    { id: { $in: uniqueIds } },
    { lockMode: LockMode.PESSIMISTIC_WRITE, orderBy: { id: 'asc' }, refresh: true },
  );
  assertInvariant(accounts.length === uniqueIds.length, `all accounts of the transfer exist (${uniqueIds.join(', ')})`);
  return new Map(accounts.map((account) => [account.id, account]));
}

interface PreparedPosting {
  account: Account;
  amount: Decimal;
}

function preparePostings(input: TransferInput, accounts: Map<string, Account>): PreparedPosting[] {
  assertInvariant(input.postings.length >= 2, 'a transfer has at least two postings');
  assertInvariant(
    new Set(input.postings.map((posting) => posting.accountId)).size === input.postings.length,
    'a transfer touches each account once',
  );
  const totals = new Map<string, Decimal>();
  const prepared = input.postings.map((posting) => {
    const account = accounts.get(posting.accountId);
    assertInvariant(account, `account ${posting.accountId} exists`);
    const amount = new Decimal(posting.amount);
    assertInvariant(amount.isFinite() && !amount.isZero(), 'posting amounts are finite and non-zero');
    totals.set(account.currency, (totals.get(account.currency) ?? new Decimal(0)).plus(amount));
    return { account, amount };
  });
  for (const [currency, total] of totals) {
    assertInvariant(total.isZero(), `transfer ${input.transferId} balances in ${currency} (off by ${total.toFixed()})`);
  }
  return prepared;
}

function assertFundsAvailable(accounts: readonly Account[]): void {
  for (const account of accounts) {
    if (account.kind === 'PARTNER' && availableAmount(account).isNegative()) {
      throw new DomainError('insufficient-funds', `not enough ${account.currency} available`);
    }
  }
}

async function persistTransfer(
  em: EntityManager,
  input: TransferInput,
  postings: readonly PreparedPosting[],
  state: 'PENDING' | 'POSTED',
  now: Date,
): Promise<LedgerTransfer> {
  const transfer = em.create(LedgerTransfer, {
    id: input.transferId,
    kind: input.kind,
    state,
    createdAt: now,
    postedAt: state === 'POSTED' ? now : null,
    voidedAt: null,
  });
  for (const { account, amount } of postings) {
    em.create(LedgerPosting, {
      id: randomUUID(),
      transferId: input.transferId,
      accountId: account.id,
      currency: account.currency,
      amount: amount.toFixed(),
      createdAt: now,
    });
  }
  await em.flush();
  return transfer;
}
