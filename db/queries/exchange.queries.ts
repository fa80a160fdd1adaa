import type pg from 'pg';
import { assertInvariant } from '../../core/errors';
import { ledgerError, ledgerPostings } from '../ledger/ledger';
import type { TransferInput } from '../ledger/ledger';

export interface ExchangeExecution {
  exchangeId: string;
  /** The operation's workflow, and that workflow's input: the API's record must match both. */
  workflowId: string;
  request: unknown;
  /** The partner's lock as read before the quote; none when it is not the partner's. */
  lock: { rates: Record<string, string>; feePercentage: string } | undefined;
  /** The quote, or why the lock's rates cannot quote this amount. */
  quote: { transfer: TransferInput; exchange: Record<string, unknown> } | { problem: string } | undefined;
  now: Date;
}

export type ExchangeOutcome = { outcome: 'EXCHANGED' | 'EXISTS' } | { outcome: 'UNKNOWN'; reason: string };

/**
 * execute_exchange (the baseline migration): every decision of an exchange in one statement, its
 * own transaction. EXISTS when an earlier run stored it; UNKNOWN, with the reason, for a workflow
 * whose input is not a request the API accepted for it. Refusals as the partner is told them: an
 * exchange given up on, a lock it cannot use, an amount the lock's rates cannot quote, insufficient funds.
 */
export async function executeExchange(pool: pg.Pool, execution: ExchangeExecution): Promise<ExchangeOutcome> {
  const quote = execution.quote && 'transfer' in execution.quote ? execution.quote : undefined;
  let rows: Array<{ outcome: 'EXCHANGED' | 'EXISTS' | 'UNKNOWN'; reason: string | null }>;
  try {
    ({ rows } = await pool.query({
      name: 'execute_exchange',
      text: 'select outcome, reason from execute_exchange($1, $2, $3::jsonb, $4::jsonb, $5, $6, $7::jsonb, $8::jsonb, $9)',
      values: [
        execution.exchangeId,
        execution.workflowId,
        JSON.stringify(execution.request),
        execution.lock ? JSON.stringify(execution.lock.rates) : null,
        execution.lock?.feePercentage ?? null,
        execution.quote && 'problem' in execution.quote ? execution.quote.problem : null,
        quote ? ledgerPostings(quote.transfer) : null,
        quote ? JSON.stringify(quote.exchange) : null,
        execution.now,
      ],
    }));
  } catch (error) {
    throw ledgerError(error);
  }
  const row = rows[0];
  assertInvariant(row, `execute_exchange answered for ${execution.exchangeId}`);
  return row.outcome === 'UNKNOWN' ? { outcome: 'UNKNOWN', reason: row.reason ?? '' } : { outcome: row.outcome };
}
