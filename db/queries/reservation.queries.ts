import type pg from 'pg';
import { assertInvariant } from '../../core/errors';
import type { OperationState, OperationStatus } from '../../core/operation-status';
import { ledgerError } from '../ledger/ledger';

/** An outgoing payment's state after its reservation, and what it holds as accepted (amount, and fee: 0 for a SEPA transfer). */
export type Reservation = OperationState & { amount: string; fee: string };

/** The outgoing payments a reservation stores (a closed list, never input). */
export type ReservedTable = 'crypto_withdrawal' | 'sepa_transfer';

/**
 * reserve_outgoing_payment: every decision of a reservation in one statement, from the request the API accepted. RESERVED,
 * the state an earlier run left, or UNKNOWN when the API accepted no such operation; refusals thrown as the partner is told them.
 */
export async function reserveOutgoingPayment(
  pool: pg.Pool,
  reservation: { table: ReservedTable; operationId: string; now: Date },
): Promise<Reservation | { unknown: string }> {
  let rows: Array<{
    outcome: 'RESERVED' | 'EXISTS' | 'UNKNOWN';
    reason: string | null;
    existing_status: OperationStatus | null;
    existing_stage: string | null;
    held_amount: string;
    held_fee: string;
  }>;
  try {
    ({ rows } = await pool.query({
      name: 'reserve_outgoing_payment',
      text: 'select outcome, reason, existing_status, existing_stage, held_amount, held_fee from reserve_outgoing_payment($1, $2, $3)',
      values: [reservation.table, reservation.operationId, reservation.now],
    }));
  } catch (error) {
    throw ledgerError(error);
  }
  const row = rows[0];
  assertInvariant(row, `reserve_outgoing_payment answered for ${reservation.operationId}`);
  if (row.outcome === 'UNKNOWN') return { unknown: row.reason ?? '' };
  const held = { amount: row.held_amount, fee: row.held_fee };
  if (row.outcome === 'EXISTS' && row.existing_status) return { status: row.existing_status, stage: row.existing_stage ?? '', ...held };
  return { status: 'IN_PROGRESS', stage: 'RESERVED', ...held };
}
