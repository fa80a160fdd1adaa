import { z } from 'zod';
import { CURRENCIES } from '../../core/currencies';
import { DomainError } from '../../core/errors';
import { coalescedLookup } from '../../db/coalesced-lookup';
import { findHistoryPages } from '../../db/queries/history.queries';
import type { HistoryPageRequest, HistoryPosition, HistoryRow } from '../../db/queries/history.queries';
import type { ApiDependencies } from '../dependencies';
import { jsonNumber } from '../http/exact-json';
import { StreamedJsonArray, respond } from '../http/respond';
import { exactNumber } from '../openapi/exact-number';
import { linkHeader } from '../openapi/headers';
import { idField, operationStatusField, timestampField } from '../schemas/response-fields.schema';
import { encodeHistoryCursor, transactionHistoryParamsSchema, transactionHistoryQuerySchema } from '../schemas/transaction-history.schema';
import { parseOrThrow } from '../schemas/validation';
import type { ApiContext } from '../state';
import type { Route } from './route';

/** How far back history goes: the month twelve months before the current one (UTC). */
const HISTORY_DEPTH_MONTHS = 12;

/** Without `limit` the month is read in pages of this many entries and streamed. */
const STREAM_PAGE_SIZE = 1000;

/** The spec's transaction types (the history shows the ones this service records). */
const TRANSACTION_TYPES = [
  'exchange',
  'atmFee',
  'sepaDeposit',
  'sepaTransfer',
  'transfer',
  'cardTransaction',
  'cryptoDeposit',
  'cryptoWithdrawal',
  'atmWithdrawal',
  'fiatDeposit',
  'refund',
  'cashback',
  'payment',
  'partialRefund',
  'fiatWithdrawal',
  'transaction',
] as const;

const currency = z.enum(CURRENCIES).meta({ description: 'A currency slug.', examples: ['btc'] });

const historyEntrySchema = z
  .strictObject({
    id: idField('The id of the operation or deposit (or of a network fee kept, see withdrawalId).', '5b0e1c9e-8d55-4a8f-9a51-1f3c2f0f4b7e'),
    createdAt: timestampField('When the entry was created (UTC, to the millisecond).', '2026-11-21T16:12:27.786Z'),
    type: z.enum(TRANSACTION_TYPES).meta({ description: 'The kind of transaction.' }),
    amount: exactNumber(
      'Signed: credits positive, debits negative (a withdrawal shows amount plus fee). For an exchange, what was credited.',
      ['-0.01505', '250'],
    ),
    currency,
    amountFrom: exactNumber('Only for an exchange: the amount debited, negative.', ['-100.5']).optional(),
    currencyFrom: currency.optional().meta({ description: 'Only for an exchange: the currency debited.' }),
    status: operationStatusField,
    withdrawalId: idField(
      'Only on the network fee kept from a crypto withdrawal whose transaction failed on chain (type cryptoWithdrawal, the fee negative, SUCCESSFUL): that withdrawal, which shows UNSUCCESSFUL.',
      '5b0e1c9e-8d55-4a8f-9a51-1f3c2f0f4b7e',
    ).optional(),
  })
  .meta({ id: 'TransactionHistoryEntry' });

/** GET /v1/partner/transaction-history/:month/:year: a UTC month, streamed whole, or with `limit` a page and a Link to the next. */
export const transactionHistoryRoute: Route = {
  method: 'get',
  path: '/v1/partner/transaction-history/:month/:year',
  authenticated: true,
  docs: {
    operationId: 'getTransactionHistory',
    tag: 'Partner',
    summary: 'The transactions of one month',
    description:
      'One UTC month, newest first, back to the month twelve months before the current one. Without `limit` the whole month ' +
      'comes as one array; with `limit` one page, and a `Link` header to the next while more follow.',
    errors: ['invalid-month-or-year', 'invalid-date'],
  },
  request: { params: transactionHistoryParamsSchema, query: transactionHistoryQuerySchema },
  response: {
    status: 200,
    description: 'The entries (of the page, with `limit`).',
    body: z.array(historyEntrySchema).meta({ description: 'The entries of the month, newest first.' }),
    headers: { Link: linkHeader.optional() },
    examples: {
      history: {
        summary: 'An exchange and a crypto withdrawal',
        value: [
          {
            id: '2b1a6c5e-3f0e-4c52-8f7d-0c8c2a9f4e11',
            createdAt: '2026-11-21T16:12:27.786Z',
            type: 'exchange',
            amount: jsonNumber('0.00162478'),
            currency: 'btc',
            amountFrom: jsonNumber('-100.5'),
            currencyFrom: 'eur',
            status: 'SUCCESSFUL',
          },
          {
            id: '9d5f2c1a-6b8e-4f3d-a2c7-1e0b9a8d7c6f',
            createdAt: '2026-11-20T09:30:00.000Z',
            type: 'cryptoWithdrawal',
            amount: jsonNumber('-0.000000000000000001'),
            currency: 'eth',
            status: 'IN_PROGRESS',
          },
        ],
      },
    },
  },
  handler: transactionHistoryHandler,
};

function transactionHistoryHandler(deps: ApiDependencies) {
  // Pages asked for together share one query (at most 32 pages); the same page asked for twice is read once.
  const historyPage = coalescedLookup((requests: readonly HistoryPageRequest[]) => findHistoryPages(deps.readPool, requests), {
    maxKeysPerQuery: 32,
    identityOf: (request) =>
      `${request.partnerId} ${request.from.toISOString()} ${request.until.toISOString()} ${request.after?.createdAtUtc} ${request.after?.id} ${request.limit}`,
  });

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
    const { limit, cursor } =
      ctx.querystring === '' ? {} : parseOrThrow(transactionHistoryQuerySchema, { ...ctx.query }, 'invalid-month-or-year');
    const inMonth = {
      partnerId: ctx.state.partnerId,
      from: new Date(Date.UTC(year, month - 1, 1)),
      until: new Date(Date.UTC(year, month, 1)),
    };
    // A cursor is the last entry of an earlier page of this month: one from another month is not ours here.
    if (cursor && !withinMonth(cursor, inMonth.from, inMonth.until)) {
      throw new DomainError(
        'invalid-month-or-year',
        `cursor must be one that a Link header of this endpoint gave for ${year}-${pad(month)}`,
      );
    }
    const page = async (after: HistoryPosition | undefined, size: number) => (await historyPage({ ...inMonth, after, limit: size })) ?? [];

    if (limit !== undefined) {
      // One more than asked tells whether a next page exists.
      const rows = await page(cursor, limit + 1);
      const entries = rows.slice(0, limit);
      if (rows.length > limit) {
        const next = encodeHistoryCursor(positionOf(entries[entries.length - 1]!));
        ctx.set('Link', `</v1/partner/transaction-history/${month}/${year}?limit=${limit}&cursor=${next}>; rel="next"`);
      }
      respond(ctx, transactionHistoryRoute.response.status, entries.map(historyEntry));
      return;
    }
    // Read before answering, so that a failing database is still a proper error response.
    const first = await page(cursor, STREAM_PAGE_SIZE);
    const whole = first.length < STREAM_PAGE_SIZE;
    const body = whole ? first.map(historyEntry) : new StreamedJsonArray(pagesFrom(first, (after) => page(after, STREAM_PAGE_SIZE)));
    respond(ctx, transactionHistoryRoute.response.status, body);
  };
}

/** The first page, then each next one, read only when the one before has been taken; a short page is the last. */
async function* pagesFrom(
  first: readonly HistoryRow[],
  pageAfter: (position: HistoryPosition) => Promise<readonly HistoryRow[]>,
): AsyncGenerator<readonly object[]> {
  let rows = first;
  while (rows.length > 0) {
    yield rows.map(historyEntry);
    rows = rows.length < STREAM_PAGE_SIZE ? [] : await pageAfter(positionOf(rows[rows.length - 1]!));
  }
}

/** One entry, `createdAt` to the millisecond; a field that does not apply is undefined, which the writer leaves out. */
function historyEntry(row: HistoryRow) {
  const amountFrom = row.amount_from;
  return {
    id: row.id,
    createdAt: `${row.created_at_utc.slice(0, 23)}Z`,
    type: row.type,
    amount: jsonNumber(row.amount),
    currency: row.currency,
    amountFrom: amountFrom === null ? undefined : jsonNumber(amountFrom),
    currencyFrom: amountFrom === null ? undefined : row.currency_from,
    status: row.status,
    withdrawalId: row.withdrawal_id ?? undefined,
  };
}

function positionOf(row: HistoryRow): HistoryPosition {
  return { createdAtUtc: row.created_at_utc, id: row.id };
}

function withinMonth(position: HistoryPosition, from: Date, until: Date): boolean {
  // Whole seconds are enough: months begin on a whole second.
  const instant = new Date(`${position.createdAtUtc.slice(0, 19)}Z`).getTime();
  return instant >= from.getTime() && instant < until.getTime();
}

function pad(month: number): string {
  return String(month).padStart(2, '0');
}

function monthName(monthIndex: number): string {
  return `${Math.floor(monthIndex / 12)}-${pad((monthIndex % 12) + 1)}`;
}
