import { withClient } from '../database';
import { runClosedLoop } from '../load/closed-loop';
import { atMost, milliseconds, reportRow } from '../report';
import type { ReportRow } from '../report';
import { accountOf, bearer, createBenchPartner } from './fixtures';
import type { BenchPartner } from './fixtures';
import { measure, summarise } from './pairs';
import type { BenchContext, MeasuredRun, SideSummary } from './pairs';

export const CURVE_ENTRIES = [0, 10_000, 100_000] as const;
const PAGE_LIMIT = 20;
/** Few callers: the curve is about what one request costs as the month fills, not about queueing. */
const PAGE_CALLERS = 4;
const MONTH_CALLERS = 2;
/** A whole month of 100k entries takes about a second: a run waits for at least this many. */
const MONTH_MIN_COUNT = 6;
const DEPOSIT_AMOUNT = '0.01';

interface CurvePoint {
  entries: number;
  partner: BenchPartner;
  /** How many entries the default (whole month) answer held, fetched once. */
  returnedEntries: number | null;
  firstPage?: SideSummary;
  wholeMonth?: SideSummary;
}

export interface HistoryCurveResult {
  rows: ReportRow[];
  /** Whether the route accepted `?limit=` (400 means not yet, and the first page is the whole month). */
  paged: boolean;
  points: Array<Omit<CurvePoint, 'partner'> & { partnerId: string }>;
}

/**
 * History p99 at 0, 10k and 100k entries in this month, for one partner each: the first page
 * (`?limit=20`, when the route takes it) and the default whole month. The 0-entries point is the
 * ceiling: the same request when there is nothing to read.
 */
export async function runHistoryCurveScenario(context: BenchContext): Promise<HistoryCurveResult> {
  // Seeding skips the triggers (session_replication_role), which only a superuser may do.
  const { databaseAdminUrl, apiUrl } = context.stack;
  const now = new Date();
  const monthStart = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), 1));
  const path = `/v1/partner/transaction-history/${now.getUTCMonth() + 1}/${now.getUTCFullYear()}`;
  const points: CurvePoint[] = [];
  for (const entries of CURVE_ENTRIES) {
    const partner = await createBenchPartner(context.orm, `bench history ${entries}`, {});
    if (entries > 0) {
      const startedAt = Date.now();
      await seedDeposits(databaseAdminUrl, partner, entries, monthStart, now);
      context.log.info(`history curve: seeded ${entries} deposits in ${((Date.now() - startedAt) / 1000).toFixed(1)} s`);
    }
    points.push({ entries, partner, returnedEntries: await countEntries(`${apiUrl}${path}`, partner) });
  }
  const largest = points[points.length - 1];
  const paged = largest !== undefined && (await acceptsLimit(`${apiUrl}${path}?limit=${PAGE_LIMIT}`, largest.partner));
  context.log.info(`history curve: the route ${paged ? 'accepts' : 'does not accept yet'} ?limit=${PAGE_LIMIT}`);

  const firstPageRuns = new Map<number, MeasuredRun[]>();
  const wholeMonthRuns = new Map<number, MeasuredRun[]>();
  const firstPageLoad = (point: CurvePoint) => getLoad(context, `${apiUrl}${path}?limit=${PAGE_LIMIT}`, point.partner, PAGE_CALLERS, 1);
  const wholeMonthLoad = (point: CurvePoint) => getLoad(context, `${apiUrl}${path}`, point.partner, MONTH_CALLERS, MONTH_MIN_COUNT);
  for (const point of points) {
    // Warm-up, unrecorded: the first reads of freshly seeded rows come from disk.
    if (paged) await measure(context, `history ${point.entries}: first page warm-up`, firstPageLoad(point), context.profile.warmupMs);
    await measure(context, `history ${point.entries}: whole month warm-up`, wholeMonthLoad(point), context.profile.warmupMs);
  }
  // Rounds over the points in turn, as pairs alternate, so drift falls on every point alike.
  for (let round = 1; round <= context.profile.rounds; round += 1) {
    for (const point of points) {
      const label = `history ${point.entries} ${round}/${context.profile.rounds}`;
      if (paged) {
        const run = await measure(context, `${label}: first page`, firstPageLoad(point), context.profile.historyCurveMs);
        firstPageRuns.set(point.entries, [...(firstPageRuns.get(point.entries) ?? []), run]);
      }
      const run = await measure(context, `${label}: whole month`, wholeMonthLoad(point), context.profile.historyCurveMs);
      wholeMonthRuns.set(point.entries, [...(wholeMonthRuns.get(point.entries) ?? []), run]);
    }
  }
  for (const point of points) {
    const firstPage = firstPageRuns.get(point.entries);
    const wholeMonth = wholeMonthRuns.get(point.entries);
    if (firstPage) point.firstPage = summarise(firstPage);
    if (wholeMonth) point.wholeMonth = summarise(wholeMonth);
  }
  return {
    rows: curveRows(points, paged),
    paged,
    points: points.map(({ partner, ...point }) => ({ ...point, partnerId: partner.partnerId })),
  };
}

/** Closed-loop GETs through fetch, each timed until its whole body is read; anything but 200 is an error. */
function getLoad(context: BenchContext, url: string, partner: BenchPartner, callers: number, minCount: number) {
  return (durationMs: number) =>
    runClosedLoop({
      callers,
      durationMs,
      minCount,
      signal: context.lifecycle.signal,
      call: async () => {
        const response = await fetch(url, { headers: bearer(partner) });
        const body = await response.arrayBuffer();
        if (response.status !== 200)
          throw new Error(`GET ${url} answered ${response.status}: ${Buffer.from(body).toString('utf8', 0, 300)}`);
      },
    });
}

function curveRows(points: readonly CurvePoint[], paged: boolean): ReportRow[] {
  const [empty, ...others] = points;
  if (!empty) return [];
  const rows: ReportRow[] = [];
  const variants: Array<{ pick: (point: CurvePoint) => SideSummary | undefined; name: string; goalAtLargest: boolean; held: boolean }> =
    paged
      ? [
          {
            pick: (point) => point.firstPage,
            name: `first page (?limit=${PAGE_LIMIT}), ${PAGE_CALLERS} callers`,
            goalAtLargest: true,
            held: false,
          },
          { pick: (point) => point.wholeMonth, name: `whole month (default), ${MONTH_CALLERS} callers`, goalAtLargest: false, held: true },
        ]
      : [
          {
            pick: (point) => point.wholeMonth,
            name: `whole month = first page (no ?limit yet), ${MONTH_CALLERS} callers`,
            goalAtLargest: true,
            held: true,
          },
        ];
  for (const variant of variants) {
    const base = variant.pick(empty);
    for (const point of others) {
      const side = variant.pick(point);
      if (!base || !side) continue;
      const held = variant.held && point.returnedEntries !== null ? ` (answer held ${point.returnedEntries.toLocaleString('en-US')})` : '';
      rows.push(
        reportRow({
          scenario: `history p99 at ${point.entries / 1000}k entries${held}: ${variant.name}`,
          figure: `p99 ${milliseconds(side.p99Ms)}`,
          ceiling: `0 entries: p99 ${milliseconds(base.p99Ms)}`,
          ratio: side.p99Ms / base.p99Ms,
          p50Ms: side.p50Ms,
          p99Ms: side.p99Ms,
          goal: variant.goalAtLargest && point === points[points.length - 1] ? atMost(3) : null,
        }),
      );
    }
  }
  return rows;
}

/**
 * Deposits straight into the tables (a fixture at SQL speed): per deposit a posted ledger
 * transfer, its two postings (EXTERNAL_DEPOSITS to the partner's eth account) and the deposit
 * row, spread over this month so far; the partner's posted balance is raised by their total.
 * The rows are balanced by construction, so the deferred balance trigger and the foreign-key
 * checks are skipped (session_replication_role = replica) rather than run 300,000 times; the
 * system account's cached balance is left alone: this is the bench's own throw-away database.
 */
async function seedDeposits(databaseUrl: string, partner: BenchPartner, count: number, from: Date, until: Date): Promise<void> {
  await withClient(databaseUrl, async (client) => {
    const target = accountOf(partner, 'eth');
    const source = await client.query<{ id: string }>(
      `select id from account where kind = 'SYSTEM' and system_code = 'EXTERNAL_DEPOSITS' and currency = 'eth' order by id limit 1`,
    );
    const sourceId = source.rows[0]?.id;
    if (!sourceId) throw new Error('no EXTERNAL_DEPOSITS/eth system account');
    await client.query('begin');
    try {
      await client.query(`set local session_replication_role = replica`);
      await client.query(
        `with seeded as materialized (
           select gen_random_uuid() as id, $4::timestamptz + ($5::timestamptz - $4::timestamptz) * random() as created_at
             from generate_series(1, $1::int)
         ), transfers as (
           insert into ledger_transfer (id, kind, state, created_at, posted_at)
           select id, 'DEPOSIT', 'POSTED', created_at, created_at from seeded
         ), postings as (
           insert into ledger_posting (id, transfer_id, account_id, currency, amount, created_at)
           select gen_random_uuid(), seeded.id, side.account_id, 'eth', side.amount, seeded.created_at
             from seeded cross join (values ($6::uuid, -$7::numeric), ($3::uuid, $7::numeric)) as side(account_id, amount)
         )
         insert into deposit (id, partner_id, account_id, currency, amount, type, created_at)
         select id, $2::uuid, $3::uuid, 'eth', $7::numeric, 'cryptoDeposit', created_at from seeded`,
        [count, partner.partnerId, target, from, until, sourceId, DEPOSIT_AMOUNT],
      );
      await client.query('update account set posted_amount = posted_amount + $2::numeric * $3::int where id = $1', [
        target,
        DEPOSIT_AMOUNT,
        count,
      ]);
      await client.query('commit');
    } catch (error) {
      await client.query('rollback').catch(() => undefined);
      throw error;
    }
    await client.query('analyze ledger_transfer, ledger_posting, deposit');
  });
}

async function countEntries(url: string, partner: BenchPartner): Promise<number | null> {
  const response = await fetch(url, { headers: bearer(partner) });
  const text = await response.text();
  if (response.status !== 200) throw new Error(`GET ${url} answered ${response.status}: ${text.slice(0, 300)}`);
  const body = JSON.parse(text) as unknown;
  return Array.isArray(body) ? body.length : null;
}

/** 200 with at most `limit` entries: the route pages. 400 (an unknown query parameter) or a whole month: not yet. */
async function acceptsLimit(url: string, partner: BenchPartner): Promise<boolean> {
  const response = await fetch(url, { headers: bearer(partner) });
  const text = await response.text();
  if (response.status !== 200) return false;
  const body = JSON.parse(text) as unknown;
  return !Array.isArray(body) || body.length <= PAGE_LIMIT;
}
