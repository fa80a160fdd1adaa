import type pg from 'pg';

export interface HistoryRow {
  id: string;
  /** UTC with microseconds and no zone letter, e.g. 2026-11-21T16:12:27.786123: exact, so it can place a cursor. */
  created_at_utc: string;
  type: string;
  /** Signed (debits negative, credits positive), as numeric text without trailing zeros. */
  amount: string;
  currency: string;
  amount_from: string | null;
  currency_from: string | null;
  status: string;
  /** Only on the network fee a withdrawal that failed on chain kept: that withdrawal's id. */
  withdrawal_id: string | null;
}

/** A place in the history's order (created_at desc, id desc): the entry a page ends with. */
export interface HistoryPosition {
  /** UTC with microseconds, as HistoryRow.created_at_utc gives it. */
  createdAtUtc: string;
  id: string;
}

export interface HistoryPageRequest {
  partnerId: string;
  from: Date;
  until: Date;
  /** Entries strictly after this one in the history's order; none: from the newest. */
  after: HistoryPosition | undefined;
  limit: number;
}

/** Sorts before every uuid: (until, NIL) excludes exactly the entries at `until` and later. */
const NIL_UUID = '00000000-0000-0000-0000-000000000000';

/** One table's entries of a page, through its (partner_id, created_at desc, id desc) index: already in order, cut at the size. */
const entriesOf = (table: string, columns: string) => `(select ${columns}
        from ${table}
       where partner_id = r.partner_id and created_at >= r.from_at and created_at < r.until_at
         and (created_at, id) < (r.after_at, r.after_id)
       order by created_at desc, id desc limit r.size)`;

/**
 * Several pages at once, one per row of the request arrays, each a Merge Append of six short index scans that reads about
 * `size` rows whatever the month holds. A crypto deposit shows from when it is seen, with its status as it goes; a crypto
 * withdrawal debits amount plus fee, and the fee one that failed on chain kept is an entry of its own. Numbers leave as
 * exact text without trailing zeros.
 */
const PAGES_SQL = `
select r.request::int as request, e.id,
       to_char(e.created_at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US') as created_at_utc, e.type,
       trim_scale(e.amount)::text as amount, e.currency, trim_scale(e.amount_from)::text as amount_from, e.currency_from, e.status,
       e.withdrawal_id
  from unnest($1::uuid[], $2::timestamptz[], $3::timestamptz[], $4::timestamptz[], $5::uuid[], $6::int[])
       with ordinality as r(partner_id, from_at, until_at, after_at, after_id, size, request)
 cross join lateral (
   select * from (
     ${[
       entriesOf(
         'deposit',
         `id, created_at, type, amount, currency,
             null::numeric as amount_from, null::text as currency_from, 'SUCCESSFUL'::text as status, null::uuid as withdrawal_id`,
       ),
       entriesOf('crypto_deposit', `id, created_at, 'cryptoDeposit', amount, currency, null, null, status, null`),
       entriesOf('exchange', `id, created_at, 'exchange', amount_to, currency_to, -amount_from, currency_from, status, null`),
       entriesOf('crypto_withdrawal', `id, created_at, 'cryptoWithdrawal', -(amount + fee), currency, null, null, status, null`),
       entriesOf(
         'crypto_withdrawal_kept_fee',
         `id, created_at, 'cryptoWithdrawal', -amount, currency, null, null, 'SUCCESSFUL', withdrawal_id`,
       ),
       entriesOf('sepa_transfer', `id, created_at, 'sepaTransfer', -amount, currency, null, null, status, null`),
     ].join('\n     union all\n     ')}
   ) entries
   order by created_at desc, id desc
   limit r.size
 ) e
 order by r.request, e.created_at desc, e.id desc`;

/** Pages of partners' movements, each in [from, until), newest first, from the operation tables (their partner-facing status). */
export async function findHistoryPages(
  pool: pg.Pool,
  requests: readonly HistoryPageRequest[],
): Promise<ReadonlyMap<HistoryPageRequest, HistoryRow[]>> {
  const after = requests.map((request) => request.after ?? { createdAtUtc: request.until.toISOString().slice(0, -1), id: NIL_UUID });
  const result = await pool.query<HistoryRow & { request: number }>({
    name: 'history-pages',
    text: PAGES_SQL,
    values: [
      requests.map((request) => request.partnerId),
      requests.map((request) => request.from.toISOString()),
      requests.map((request) => request.until.toISOString()),
      after.map((position) => `${position.createdAtUtc}Z`),
      after.map((position) => position.id),
      requests.map((request) => request.limit),
    ],
  });
  const pages = requests.map((): HistoryRow[] => []);
  for (const row of result.rows) pages[row.request - 1]?.push(row);
  return new Map(requests.map((request, index) => [request, pages[index]!]));
}
