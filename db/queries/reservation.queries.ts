import type pg from 'pg';
import { assertInvariant } from '../../core/errors';
import type { OperationState, OperationStatus } from '../../core/operation-status';
import { ledgerError, ledgerPostings } from '../ledger/ledger';
import type { TransferInput } from '../ledger/ledger';

/** What a reservation that stored its record answers. */
export const RESERVED: OperationState = Object.freeze({ status: 'IN_PROGRESS', stage: 'RESERVED' });

/** The outgoing payments a reservation stores (a closed list, never input). */
export type ReservedTable = 'crypto_withdrawal' | 'sepa_transfer';

/** What an outgoing payment's reservation writes: its hold and its record, and what the partner's controls weigh. */
export interface ReservationPlan {
  transfer: TransferInput;
  /** The record's columns by their names in the table; columns it does not name are null. */
  record: Record<string, unknown>;
  /** What it adds towards the partner's daily limit. */
  amountEur: string;
  /** A withdrawal's destination as its address book matches it; null for a SEPA transfer. */
  addressKey: string | null;
}

export interface Reservation extends ReservationPlan {
  now: Date;
  table: ReservedTable;
  operationId: string;
  /** The operation's workflow, and that workflow's input: the API's record must match both, and the transfer's kind. */
  workflowId: string;
  request: unknown;
}

/**
 * reserve_outgoing_payment (the baseline migration): every decision of a reservation in one
 * statement, its own transaction. RESERVED, or the state an earlier run left (its record was
 * there), or UNKNOWN with the reason for a workflow whose input is not a request the API accepted
 * for it. Refusals as the partner is told them: no active EUR account, a destination its address
 * book does not allow yet, a payment given up on, insufficient funds, the daily limit.
 */
export async function reserveOutgoingPayment(pool: pg.Pool, reservation: Reservation): Promise<OperationState | { unknown: string }> {
  let rows: Array<{
    outcome: 'RESERVED' | 'EXISTS' | 'UNKNOWN';
    reason: string | null;
    existing_status: OperationStatus | null;
    existing_stage: string | null;
  }>;
  try {
    ({ rows } = await pool.query({
      name: 'reserve_outgoing_payment',
      text: `select outcome, reason, existing_status, existing_stage
               from reserve_outgoing_payment($1, $2, $3, $4, $5::jsonb, $6::jsonb, $7::jsonb, $8, $9, $10)`,
      values: [
        reservation.table,
        reservation.operationId,
        reservation.transfer.kind,
        reservation.workflowId,
        JSON.stringify(reservation.request),
        ledgerPostings(reservation.transfer),
        JSON.stringify(reservation.record),
        reservation.amountEur,
        reservation.addressKey,
        reservation.now,
      ],
    }));
  } catch (error) {
    throw ledgerError(error);
  }
  const row = rows[0];
  assertInvariant(row, `reserve_outgoing_payment answered for ${reservation.operationId}`);
  if (row.outcome === 'UNKNOWN') return { unknown: row.reason ?? '' };
  if (row.outcome === 'EXISTS' && row.existing_status) return { status: row.existing_status, stage: row.existing_stage ?? '' };
  return RESERVED;
}
