import type pg from 'pg';
import { assertInvariant } from '../../core/errors';
import { ledgerError } from '../ledger/ledger';

/**
 * An outgoing payment's steps as one conditional statement each, its `WHERE` the step's precondition, re-checked by
 * Postgres on the row it locks; when it matches nothing, the step says why (activities/outgoing-payment.steps.ts).
 * Plain SQL: the ORM cost about 3 ms of the worker's main thread per withdrawal. The tables are a closed list, never input.
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

/** Records the hand-off (the first time kept) of an open payment whose hold is PENDING and that meets `ready`; else false. */
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

/** Settles an open, handed-off payment in one statement: record SETTLED and hold posted together; else false, nothing changed. */
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
 * Stores a broadcast's hash (the first stays) and BROADCAST unless final meanwhile. A node's refusal another run heard is
 * dropped with an open withdrawal's first hash: the transaction was taken, so it releases nothing.
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

/** Stores a submission's message id and first bank reference, and SUBMITTED for a transfer still RESERVED. */
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
