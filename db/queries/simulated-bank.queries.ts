import type pg from 'pg';

export interface SimulatedBankPaymentRow {
  creditor_iban: string;
  /** The database's clock has passed submitted_at + the settlement delay. */
  due: boolean;
}

/** Records a submission once: a repeated submit of the same transfer keeps the first row and time. */
export async function insertSimulatedBankPayment(
  pool: pg.Pool,
  payment: { transferId: string; messageId: string; amount: string; creditorIban: string; pain001: string },
): Promise<void> {
  await pool.query(
    `insert into simulated_bank_payment (transfer_id, message_id, amount, creditor_iban, pain001)
     values ($1, $2, $3, $4, $5) on conflict (transfer_id) do nothing`,
    [payment.transferId, payment.messageId, payment.amount, payment.creditorIban, payment.pain001],
  );
}

/** The payment and whether it is due, both from the database, the clock every worker shares. */
export async function simulatedBankPayment(
  pool: pg.Pool,
  transferId: string,
  settlementDelayMs: number,
): Promise<SimulatedBankPaymentRow | undefined> {
  const result = await pool.query<SimulatedBankPaymentRow>(
    `select creditor_iban, clock_timestamp() >= submitted_at + make_interval(secs => $2::double precision / 1000) as due
     from simulated_bank_payment where transfer_id = $1`,
    [transferId, settlementDelayMs],
  );
  return result.rows[0];
}
