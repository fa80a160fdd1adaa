import type pg from 'pg';
import { assertInvariant } from '../../core/errors';
import { ledgerError } from '../ledger/ledger';

/**
 * The usual path of an outgoing payment's steps (activities/outgoing-payment.steps.ts), each a
 * conditional statement instead of `SELECT … FOR UPDATE`, a second read and an UPDATE: the
 * statement's `WHERE` is the step's precondition, re-checked by Postgres on the row it locks, so a
 * concurrent release or settlement is seen (READ COMMITTED re-evaluates the row it waited for).
 * A statement that matches nothing changes nothing; the step then decides on the slow path, with
 * the record locked, exactly as before. The tables are a closed list, never input. Plain
 * statements through the worker's pool: an entity load or knex's query building buys nothing
 * here (issue 22: around these statements they took about 3 ms of the worker's main thread per
 * withdrawal).
 */
export type OutgoingPaymentTable = 'crypto_withdrawal' | 'sepa_transfer';

/** The column that holds the chain's or the bank's reference: once set, the money was handed off. */
const REFERENCE_COLUMN: Record<OutgoingPaymentTable, string> = {
  crypto_withdrawal: 'transaction_hash',
  sepa_transfer: 'bank_reference',
};

const OPEN = `status not in ('SUCCESSFUL', 'UNSUCCESSFUL')`;

/** A condition on the record's own columns, with its `?` parameters (none inside the SQL text's literals). */
export interface RecordCondition {
  sql: string;
  params: readonly unknown[];
}

/** The condition's `?` parameters numbered from `$first` on, as pg takes them. */
function numbered(condition: RecordCondition, first: number): string {
  let next = first;
  return condition.sql.replace(/\?/g, () => `$${next++}`);
}

/**
 * Records the hand-off of an open payment whose hold is still PENDING and which meets `ready`;
 * keeps the first hand-off time. True when it did (or had, on a re-run); false when anything is
 * not so (closed, released, not ready, unknown), nothing changed.
 */
export async function markHandedOffIfOpen(
  pool: pg.Pool,
  table: OutgoingPaymentTable,
  change: { id: string; stage: string | null; now: Date; ready?: RecordCondition },
): Promise<boolean> {
  const ready = change.ready ?? { sql: 'true', params: [] };
  const { rowCount } = await pool.query(
    `update ${table} set handed_off_at = coalesce(handed_off_at, $1), stage = coalesce($2, stage), updated_at = $1
      where id = $3 and ${OPEN}
        and exists (select 1 from ledger_transfer t where t.id = ${table}.id and t.state = 'PENDING')
        and (${numbered(ready, 4)})
      returning id`,
    [change.now, change.stage, change.id, ...ready.params],
  );
  return rowCount === 1;
}

/** The record and the state of its hold (null: no transfer under its id), read in one statement, nothing locked. */
export async function findWithHoldState(
  pool: pg.Pool,
  table: OutgoingPaymentTable,
  id: string,
): Promise<{ row: Record<string, unknown>; holdState: string | null } | undefined> {
  const { rows } = await pool.query<Record<string, unknown>>(
    `select r.*, t.state as hold_state from ${table} r left join ledger_transfer t on t.id = r.id where r.id = $1`,
    [id],
  );
  const found = rows[0];
  if (!found) return undefined;
  const { hold_state: holdState, ...row } = found;
  return { row, holdState: (holdState as string | null) ?? null };
}

/**
 * Settles an open, handed-off payment in one statement, its own transaction: the record closed as
 * SETTLED and its hold posted (ledger_complete) together, the posting made only for the row the
 * update closed. False when it is not open and handed off: nothing changed, and the caller decides
 * with the record locked. The ledger's refusals raise as postTransfer's do (ledgerError).
 */
export async function settleIfHandedOff(pool: pg.Pool, table: OutgoingPaymentTable, id: string, now: Date): Promise<boolean> {
  let rows: Array<{ outcome: unknown }>;
  try {
    ({ rows } = await pool.query<{ outcome: unknown }>({
      name: `settle_${table}`,
      text: `with closed as (
               update ${table} set status = 'SUCCESSFUL', stage = 'SETTLED', failure_reason = null, updated_at = $1
                where id = $2 and ${OPEN} and (handed_off_at is not null or ${REFERENCE_COLUMN[table]} is not null)
                returning id)
             select ledger_complete(closed.id, 'POSTED', $1) as outcome from closed`,
      values: [now, id],
    }));
  } catch (error) {
    throw ledgerError(error);
  }
  const outcome = rows[0]?.outcome;
  assertInvariant(outcome === undefined || outcome === 'CHANGED' || outcome === 'UNCHANGED', `ledger_complete answered for ${id}`);
  return outcome !== undefined;
}

/**
 * Stores what the chain answered to a broadcast: the first hash stays; the stage becomes
 * BROADCAST unless a settlement (or anything final) committed meanwhile. A node's refusal another
 * run of the broadcast heard is dropped with the first hash of an open withdrawal: the transaction
 * was taken, so that refusal releases nothing. One statement.
 */
export async function recordBroadcast(pool: pg.Pool, id: string, transactionHash: string, now: Date): Promise<void> {
  const { rowCount } = await pool.query(
    `update crypto_withdrawal set transaction_hash = coalesce(transaction_hash, $1),
            external_rejection = case when transaction_hash is null and ${OPEN} then null else external_rejection end,
            stage = case when ${OPEN} then 'BROADCAST' else stage end, updated_at = $2
      where id = $3 returning id`,
    [transactionHash, now, id],
  );
  assertInvariant(rowCount === 1, `crypto withdrawal ${id} exists`);
}

/**
 * Stores what the bank answered to a submission: the message id, the first reference (kept), and
 * SUBMITTED for a transfer still RESERVED. One statement.
 */
export async function recordSubmission(
  pool: pg.Pool,
  submission: { id: string; messageId: string; bankReference: string; now: Date },
): Promise<void> {
  const { rowCount } = await pool.query(
    `update sepa_transfer set message_id = $1, bank_reference = coalesce(bank_reference, $2),
            stage = case when stage = 'RESERVED' then 'SUBMITTED' else stage end, updated_at = $3
      where id = $4 returning id`,
    [submission.messageId, submission.bankReference, submission.now, submission.id],
  );
  assertInvariant(rowCount === 1, `SEPA transfer ${submission.id} exists`);
}

/** A SEPA transfer with its hold's state and its debtor (the partner's name and EUR IBAN), in one statement, nothing locked. */
export async function findSepaTransferWithDebtor(
  pool: pg.Pool,
  id: string,
): Promise<{ row: Record<string, unknown>; holdState: string | null; debtorName: string | null; debtorIban: string | null } | undefined> {
  const { rows } = await pool.query<Record<string, unknown>>(
    `select s.*, t.state as hold_state, p.name as debtor_name, a.iban as debtor_iban
       from sepa_transfer s
       left join ledger_transfer t on t.id = s.id
       left join partner p on p.id = s.partner_id
       left join account a on a.kind = 'PARTNER' and a.partner_id = s.partner_id and a.currency = 'eur'
      where s.id = $1`,
    [id],
  );
  const found = rows[0];
  if (!found) return undefined;
  const { hold_state: holdState, debtor_name: debtorName, debtor_iban: debtorIban, ...row } = found;
  return {
    row,
    holdState: (holdState as string | null) ?? null,
    debtorName: (debtorName as string | null) ?? null,
    debtorIban: (debtorIban as string | null) ?? null,
  };
}
