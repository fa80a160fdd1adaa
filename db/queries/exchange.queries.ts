import type pg from 'pg';
import { assertInvariant } from '../../core/errors';
import { ledgerError, ledgerPostings } from '../ledger/ledger';
import type { TransferInput } from '../ledger/ledger';

export interface OneStatementExchange {
  exchangeId: string;
  /** The operation's workflow, and that workflow's input: the API's record must match both. */
  workflowId: string;
  request: unknown;
  /** The lock as read before the quote: it is used only if its rates and fee are still these. */
  lock: { id: string; rates: Record<string, string>; feePercentage: string };
  transfer: TransferInput;
  /** The exchange's columns by their names in the table. */
  exchange: Record<string, unknown>;
  now: Date;
}

/**
 * The usual exchange in one round trip: execute_exchange
 * takes the operation's lock, checks the accepted request, finds no exchange stored, uses the
 * partner's lock at the rates and fee the quote was computed from, then posts the transfer and
 * stores the exchange, all one transaction. EXISTS when an earlier run stored it; DECIDE when it
 * wrote nothing and the caller exchanges step by step. Insufficient funds and an exchange given up
 * on are refused as postTransferDirectly refuses them.
 */
export async function executeExchangeInOneStatement(
  pool: pg.Pool,
  exchange: OneStatementExchange,
): Promise<'EXCHANGED' | 'EXISTS' | 'DECIDE'> {
  let rows: Array<{ outcome: 'EXCHANGED' | 'EXISTS' | 'DECIDE' }>;
  try {
    ({ rows } = await pool.query({
      name: 'execute_exchange',
      text: 'select outcome from execute_exchange($1, $2, $3::jsonb, $4, $5::jsonb, $6, $7::jsonb, $8::jsonb, $9)',
      values: [
        exchange.exchangeId,
        exchange.workflowId,
        JSON.stringify(exchange.request),
        exchange.lock.id,
        JSON.stringify(exchange.lock.rates),
        exchange.lock.feePercentage,
        ledgerPostings(exchange.transfer),
        JSON.stringify(exchange.exchange),
        exchange.now,
      ],
    }));
  } catch (error) {
    throw ledgerError(error);
  }
  const outcome = rows[0]?.outcome;
  assertInvariant(outcome, `execute_exchange answered for ${exchange.exchangeId}`);
  return outcome;
}
