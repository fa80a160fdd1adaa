import { DomainError } from '../../core/errors';
import { Decimal } from '../../core/money';
import { findHistory } from '../../db/queries/history.queries';
import type { ApiDependencies } from '../dependencies';
import { jsonNumber } from '../http/exact-json';
import { respondJson } from '../http/respond';
import { transactionHistoryParamsSchema } from '../schemas/transaction-history.schema';
import { parseOrThrow } from '../schemas/validation';
import type { ApiContext } from '../state';

/** How far back history goes: the month twelve months before the current one (UTC). */
const HISTORY_DEPTH_MONTHS = 12;

/** GET /v1/partner/transaction-history/:month/:year: one UTC month, newest first. */
export function transactionHistoryRoute(deps: ApiDependencies) {
  return async (ctx: ApiContext): Promise<void> => {
    const now = deps.clock.now();
    const { month, year } = parseOrThrow(transactionHistoryParamsSchema(now.getUTCFullYear()), ctx.params, 'invalid-month-or-year');
    const requestedIndex = year * 12 + (month - 1);
    const currentIndex = now.getUTCFullYear() * 12 + now.getUTCMonth();
    if (requestedIndex > currentIndex) throw new DomainError('invalid-date', `${year}-${pad(month)} is in the future`);
    if (requestedIndex < currentIndex - HISTORY_DEPTH_MONTHS) {
      throw new DomainError(
        'invalid-date',
        `history goes back ${HISTORY_DEPTH_MONTHS} months, to ${monthName(currentIndex - HISTORY_DEPTH_MONTHS)}`,
      );
    }
    const from = new Date(Date.UTC(year, month - 1, 1));
    const until = new Date(Date.UTC(year, month, 1));
    const rows = await findHistory(deps.readPool, ctx.state.partnerId, from, until);
    respondJson(
      ctx,
      200,
      rows.map((row) => ({
        id: row.id,
        createdAt: row.created_at.toISOString(),
        type: row.type,
        amount: jsonNumber(new Decimal(row.amount)),
        currency: row.currency,
        ...(row.amount_from === null ? {} : { amountFrom: jsonNumber(new Decimal(row.amount_from)), currencyFrom: row.currency_from }),
        status: row.status,
      })),
    );
  };
}

function pad(month: number): string {
  return String(month).padStart(2, '0');
}

function monthName(monthIndex: number): string {
  return `${Math.floor(monthIndex / 12)}-${pad((monthIndex % 12) + 1)}`;
}
