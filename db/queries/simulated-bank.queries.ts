import type { EntityManager } from '@mikro-orm/postgresql';
import type pg from 'pg';

export interface SimulatedBankPaymentRow {
  message_id: string;
  amount: string;
  creditor_iban: string;
  outcome: 'SETTLED' | 'REJECTED';
  rejection_reason: string | null;
  /** The database's clock has reached the payment's answer time. */
  due: boolean;
}

const COLUMNS = `message_id, amount::text, creditor_iban, outcome, rejection_reason, clock_timestamp() >= answer_at as due`;

/** Records a submission once, its answer and answer time decided now; returns the stored row, the first one's on a repeat. */
export async function submitSimulatedBankPayment(
  pool: pg.Pool,
  payment: {
    transferId: string;
    messageId: string;
    amount: string;
    creditorIban: string;
    pain001: string;
    settlementDelayMs: number;
    outcome: 'SETTLED' | 'REJECTED';
    rejectionReason: string | null;
  },
): Promise<SimulatedBankPaymentRow> {
  const inserted = await pool.query<SimulatedBankPaymentRow>(
    `insert into simulated_bank_payment (transfer_id, message_id, amount, creditor_iban, pain001, answer_at, outcome, rejection_reason)
     values ($1, $2, $3, $4, $5, clock_timestamp() + make_interval(secs => $6::double precision / 1000), $7, $8)
     on conflict (transfer_id) do nothing
     returning ${COLUMNS}`,
    [
      payment.transferId,
      payment.messageId,
      payment.amount,
      payment.creditorIban,
      payment.pain001,
      payment.settlementDelayMs,
      payment.outcome,
      payment.rejectionReason,
    ],
  );
  const row = inserted.rows[0] ?? (await simulatedBankPayment(pool, payment.transferId));
  if (!row) throw new Error(`simulated bank payment ${payment.transferId} neither inserted nor found`);
  return row;
}

export async function simulatedBankPayment(pool: pg.Pool, transferId: string): Promise<SimulatedBankPaymentRow | undefined> {
  const result = await pool.query<SimulatedBankPaymentRow>(`select ${COLUMNS} from simulated_bank_payment where transfer_id = $1`, [
    transferId,
  ]);
  return result.rows[0];
}

export interface SimulatedBankCredit {
  entryRef: string;
  accountIban: string;
  amount: string;
  debtorName: string;
  debtorIban: string;
  remittance: string | null;
}

/** The credits the simulated bank recorded under an entry reference (a re-delivery has the same details). */
export async function simulatedBankCreditsOf(em: EntityManager, entryRef: string): Promise<SimulatedBankCredit[]> {
  return em.execute<SimulatedBankCredit[]>(
    `select entry_ref as "entryRef", account_iban as "accountIban", amount::text as amount, debtor_name as "debtorName",
            debtor_iban as "debtorIban", remittance
       from simulated_bank_notification where entry_ref = ? order by sequence limit 10`,
    [entryRef],
  );
}

/** Records a notification to deliver; inserts are serialised to the caller's commit, so sequences commit in order. */
export async function insertSimulatedBankNotification(
  em: EntityManager,
  notification: SimulatedBankCredit & { id: string; camt054: string },
): Promise<{ sequence: string }> {
  await em.execute(`select pg_advisory_xact_lock(hashtextextended('simulated_bank_notification', 0))`);
  const rows = await em.execute<{ sequence: string }[]>(
    `insert into simulated_bank_notification (id, entry_ref, account_iban, amount, debtor_name, debtor_iban, remittance, camt054)
     values (?, ?, ?, ?, ?, ?, ?, ?) returning sequence::text as sequence`,
    [
      notification.id,
      notification.entryRef,
      notification.accountIban,
      notification.amount,
      notification.debtorName,
      notification.debtorIban,
      notification.remittance,
      notification.camt054,
    ],
  );
  const row = rows[0];
  if (!row) throw new Error('simulated bank notification not inserted');
  return row;
}

/** The notifications after a sequence number, oldest first, at most `limit`. */
export async function simulatedBankNotificationsAfter(
  pool: pg.Pool,
  afterSequence: string,
  limit: number,
): Promise<Array<{ sequence: string; camt054: string }>> {
  // By the bigint column, named with its table: a bare `order by sequence` would sort the text output ('10' before '9').
  const result = await pool.query<{ sequence: string; camt054: string }>(
    `select n.sequence::text as sequence, n.camt054 from simulated_bank_notification n
      where n.sequence > $1::bigint order by n.sequence limit $2`,
    [afterSequence, limit],
  );
  return result.rows;
}
