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

/**
 * Several pages at once, one per row of the request arrays. For each, every branch reads one table
 * through its (partner_id, created_at desc, id desc) index, already in the page's order and cut
 * at the page's size, so Postgres merges six short index scans (Merge Append) and reads about
 * `size` rows whatever the month holds. A deposit found on chain shows from the moment it is seen
 * (IN_PROGRESS), with its status as it goes (SUCCESSFUL once credited, UNSUCCESSFUL when it never
 * will be). A crypto withdrawal shows everything it debits: amount
 * plus network fee; one whose transaction failed on chain adds the fee it kept, SUCCESSFUL, as an
 * entry of its own. Numbers leave as their exact text without trailing zeros.
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
     (select id, created_at, type, amount, currency,
             null::numeric as amount_from, null::text as currency_from, 'SUCCESSFUL'::text as status, null::uuid as withdrawal_id
        from deposit
       where partner_id = r.partner_id and created_at >= r.from_at and created_at < r.until_at
         and (created_at, id) < (r.after_at, r.after_id)
       order by created_at desc, id desc limit r.size)
     union all
     (select id, created_at, 'cryptoDeposit', amount, currency, null, null, status, null
        from crypto_deposit
       where partner_id = r.partner_id and created_at >= r.from_at and created_at < r.until_at
         and (created_at, id) < (r.after_at, r.after_id)
       order by created_at desc, id desc limit r.size)
     union all
     (select id, created_at, 'exchange', amount_to, currency_to, -amount_from, currency_from, status, null
        from exchange
       where partner_id = r.partner_id and created_at >= r.from_at and created_at < r.until_at
         and (created_at, id) < (r.after_at, r.after_id)
       order by created_at desc, id desc limit r.size)
     union all
     (select id, created_at, 'cryptoWithdrawal', -(amount + fee), currency, null, null, status, null
        from crypto_withdrawal
       where partner_id = r.partner_id and created_at >= r.from_at and created_at < r.until_at
         and (created_at, id) < (r.after_at, r.after_id)
       order by created_at desc, id desc limit r.size)
     union all
     (select id, created_at, 'cryptoWithdrawal', -amount, currency, null, null, 'SUCCESSFUL', withdrawal_id
        from crypto_withdrawal_kept_fee
       where partner_id = r.partner_id and created_at >= r.from_at and created_at < r.until_at
         and (created_at, id) < (r.after_at, r.after_id)
       order by created_at desc, id desc limit r.size)
     union all
     (select id, created_at, 'sepaTransfer', -amount, currency, null, null, status, null
        from sepa_transfer
       where partner_id = r.partner_id and created_at >= r.from_at and created_at < r.until_at
         and (created_at, id) < (r.after_at, r.after_id)
       order by created_at desc, id desc limit r.size)
   ) entries
   order by created_at desc, id desc
   limit r.size
 ) e
 order by r.request, e.created_at desc, e.id desc`;

/**
 * Pages of partners' movements, each in [from, until) and newest first, from the operation
 * tables themselves (the ledger stays the source of truth for balances; these rows carry the
 * partner-facing status). One prepared statement (parsed once per connection) for all of them.
 */
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
