import type pg from 'pg';
import { assertInvariant } from '../../core/errors';
import { ledgerError, ledgerPostings } from '../ledger/ledger';
import type { TransferInput } from '../ledger/ledger';
import type { AcceptedExchange } from './accepted-operation.queries';

/** What an exchange is quoted from: the request the API accepted, and its partner's rate lock as it reads now. */
export interface ExchangeTerms {
  partnerId: string;
  request: AcceptedExchange;
  /** None when the request names no lock of its partner's. */
  lock: { rates: Record<string, string>; feePercentage: string } | undefined;
}

/** The accepted exchange and its lock in one read; undefined when the API accepted no exchange with this id. */
export async function findExchangeTerms(pool: pg.Pool, exchangeId: string): Promise<ExchangeTerms | undefined> {
  const { rows } = await pool.query<{
    partner_id: string;
    request: AcceptedExchange;
    rates: Record<string, string> | null;
    fee_percentage: string | null;
  }>({
    name: 'find_exchange_terms',
    text: `select a.partner_id, a.request, l.rates, l.fee_percentage::text as fee_percentage
             from accepted_operation a
             left join rate_lock l on l.partner_id = a.partner_id and l.id = case
               when a.request->>'lock_id' ~* '^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$'
               then (a.request->>'lock_id')::uuid end
            where a.id = $1 and a.kind = 'EXCHANGE'`,
    values: [exchangeId],
  });
  const row = rows[0];
  if (!row) return undefined;
  const lock = row.rates && row.fee_percentage !== null ? { rates: row.rates, feePercentage: row.fee_percentage } : undefined;
  return { partnerId: row.partner_id, request: row.request, lock };
}

export interface ExchangeExecution {
  exchangeId: string;
  /** The lock's terms the quote came from; none when the request names no lock of its partner's. */
  lock: ExchangeTerms['lock'];
  /** The quote, or why the lock's rates cannot quote this amount. */
  quote: { transfer: TransferInput; exchange: Record<string, unknown> } | { problem: string } | undefined;
  now: Date;
}

export type ExchangeOutcome = { outcome: 'EXCHANGED' | 'EXISTS' } | { outcome: 'UNKNOWN'; reason: string };

/**
 * execute_exchange: every decision of an exchange in one statement. EXISTS when an earlier run stored it; UNKNOWN when the
 * API accepted no such exchange; refusals thrown as the partner is told them.
 */
export async function executeExchange(pool: pg.Pool, execution: ExchangeExecution): Promise<ExchangeOutcome> {
  const quote = execution.quote && 'transfer' in execution.quote ? execution.quote : undefined;
  let rows: Array<{ outcome: 'EXCHANGED' | 'EXISTS' | 'UNKNOWN'; reason: string | null }>;
  try {
    ({ rows } = await pool.query({
      name: 'execute_exchange',
      text: 'select outcome, reason from execute_exchange($1, $2::jsonb, $3, $4, $5::jsonb, $6::jsonb, $7)',
      values: [
        execution.exchangeId,
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
