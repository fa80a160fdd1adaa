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

/**
 * Records a submission once, with its answer and answer time decided now; a repeated submit
 * keeps the first row. Returns the stored row, the first one's if it was there already.
 */
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
