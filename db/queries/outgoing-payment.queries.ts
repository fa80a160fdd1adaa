import type pg from 'pg';
import { assertInvariant } from '../../core/errors';
import type { OperationStatus } from '../../core/operation-status';
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

/** Why a hand-off matched nothing: the record's state, its hold's, and what its rule still lacks (null: nothing). */
export interface HandOffRefusal {
  status: OperationStatus;
  stage: string;
  holdState: string | null;
  unmet: string | null;
}

/**
 * What may still keep an open payment from being handed off, as SQL over its row `r`, its parameter from `$first`. The
 * withdrawal's rule is the database's (withdrawal_hand_off_unmet); a SEPA transfer's pain.001 is checked by its step.
 */
function handOffUnmet(table: OutgoingPaymentTable, denyList: readonly string[], first: number): { sql: string; params: unknown[] } {
  if (table === 'sepa_transfer') return { sql: 'null::text', params: [] };
  return { sql: `withdrawal_hand_off_unmet(r, $${first}::jsonb)`, params: [JSON.stringify(denyList)] };
}

/**
 * Records the hand-off (the first time kept) of an open payment whose hold is PENDING and that nothing keeps back, in one
 * statement; when it matches nothing, a second one says why. Once handed off it only marks again.
 */
export async function markHandedOff(
  pool: pg.Pool,
  table: OutgoingPaymentTable,
  change: { id: string; stage: string | null; now: Date; denyList: readonly string[] },
): Promise<'MARKED' | HandOffRefusal> {
  const handedOff = `(r.handed_off_at is not null or r.${REFERENCE_COLUMN[table]} is not null)`;
  const marking = handOffUnmet(table, change.denyList, 4);
  const { rowCount } = await pool.query({
    name: `mark_hand_off_${table}`,
    text: `update ${table} r set handed_off_at = coalesce(r.handed_off_at, $1), stage = coalesce($2, r.stage), updated_at = $1
            where r.id = $3 and r.${OPEN}
              and exists (select 1 from ledger_transfer t where t.id = r.id and t.state = 'PENDING')
              and (${handedOff} or ${marking.sql} is null)`,
    values: [change.now, change.stage, change.id, ...marking.params],
  });
  if (rowCount === 1) return 'MARKED';
  const reading = handOffUnmet(table, change.denyList, 2);
  const { rows } = await pool.query<HandOffRefusal>(
    `select r.status, r.stage, t.state as "holdState", case when ${handedOff} then null else ${reading.sql} end as unmet
       from ${table} r left join ledger_transfer t on t.id = r.id where r.id = $1`,
    [change.id, ...reading.params],
  );
  assertInvariant(rows[0], `${table} ${change.id} exists`);
  return rows[0];
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
export async function settleIfHandedOff(
  pool: pg.Pool | pg.ClientBase,
  table: OutgoingPaymentTable,
  id: string,
  now: Date,
): Promise<boolean> {
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
