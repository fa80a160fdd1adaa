import { runHttpLoad } from '../load/http-load';
import type { BenchChild } from '../processes';
import { atLeast, perSecond, reportRow } from '../report';
import type { ReportRow } from '../report';
import { startBareKoa } from '../stack';
import { bearer, createBenchPartner } from './fixtures';
import type { BenchPartner } from './fixtures';
import { runPair, withProcesses } from './pairs';
import type { BenchContext, PairOutcome } from './pairs';

/** As in the measurement. */
const CONNECTIONS = 50;
const HISTORY_ENTRIES = 20;

/** Headers that belong to one connection or one moment, not to the answer: bare Koa sets its own. */
const PER_RESPONSE_HEADERS = new Set(['date', 'connection', 'keep-alive', 'transfer-encoding', 'content-length']);

export interface CapturedResponse {
  headers: Record<string, string>;
  bodyBase64: string;
}

export interface HttpScenarioResult {
  /** One partner on every connection (as the issue measured), then one partner per connection. */
  rows: ReportRow[];
  outcomes: Record<string, PairOutcome>;
  /** The scenario's bare Koa, left running until the end (its RSS is read then). */
  koa: BenchChild;
}

/**
 * GET /v1/partner/balances for partners with a balance in every currency: one partner on all
 * fifty connections (as the issue measured), then one partner per connection, since identical
 * requests arriving together share the API's query and one partner measures much of that.
 */
export async function runBalancesScenario(context: BenchContext): Promise<HttpScenarioResult> {
  const partners = await createPartnersInParallel(CONNECTIONS, (index) =>
    createBenchPartner(context.orm, `bench balances ${index + 1}`, {
      eur: '100000.00',
      btc: '2.5',
      doge: '50000',
      eth: '40',
      ltc: '300',
      pol: '100000',
      usdc: '250000',
    }),
  );
  return runHttpScenario(
    context,
    'balances',
    '/v1/partner/balances',
    partners,
    0.5,
    `GET /v1/partner/balances, ${CONNECTIONS} connections`,
  );
}

/** This UTC month's history for partners with twenty deposits in it: one partner, then one per connection (see balances). */
export async function runHistoryScenario(context: BenchContext): Promise<HttpScenarioResult> {
  const partners = await createPartnersInParallel(CONNECTIONS, (index) =>
    createBenchPartner(context.orm, `bench history ${index + 1}`, { eth: '0.5' }, HISTORY_ENTRIES),
  );
  const now = new Date();
  const path = `/v1/partner/transaction-history/${now.getUTCMonth() + 1}/${now.getUTCFullYear()}`;
  return runHttpScenario(
    context,
    'history',
    path,
    partners,
    0.3,
    `GET …/transaction-history, ${HISTORY_ENTRIES} entries, ${CONNECTIONS} connections`,
    (body) => {
      const entries = JSON.parse(body.toString('utf8')) as unknown[];
      if (entries.length !== HISTORY_ENTRIES) throw new Error(`history answered ${entries.length} entries, expected ${HISTORY_ENTRIES}`);
    },
  );
}

/**
 * The project's API against bare Koa serving the bytes and headers the API answered the first
 * partner's request (fetched first), each with 50 keep-alive connections.
 */
async function runHttpScenario(
  context: BenchContext,
  name: string,
  path: string,
  partners: readonly BenchPartner[],
  goal: number,
  scenario: string,
  check?: (body: Buffer) => void,
): Promise<HttpScenarioResult> {
  const { apiUrl, logDir } = context.stack;
  const [partner] = partners;
  if (!partner) throw new Error(`${name}: no partners`);
  const captured = await capture(`${apiUrl}${path}`, bearer(partner));
  check?.(Buffer.from(captured.bodyBase64, 'base64'));
  const koa = await startBareKoa(context.lifecycle, logDir, `bare-koa-${name}`, { [path]: captured });
  const { signal } = context.lifecycle;
  // The same request to both: bare Koa ignores the key.
  const headers = bearer(partner);
  const rows: ReportRow[] = [];
  const outcomes: Record<string, PairOutcome> = {};
  for (const spread of ['one partner', 'one partner per connection'] as const) {
    const connectionHeaders = spread === 'one partner' ? undefined : partners.map(bearer);
    const outcome = await runPair(
      withProcesses(context, [koa.child]),
      `${name}, ${spread}`,
      (durationMs) => runHttpLoad({ url: `${apiUrl}${path}`, headers, connectionHeaders, connections: CONNECTIONS, durationMs, signal }),
      (durationMs) => runHttpLoad({ url: `${koa.url}${path}`, headers, connections: CONNECTIONS, durationMs, signal }),
      context.profile.httpMs,
    );
    outcomes[spread] = outcome;
    rows.push(
      reportRow({
        scenario: `${scenario}, ${spread}`,
        figure: perSecond(outcome.project.perSecond, 'req'),
        ceiling: `bare Koa, same bytes: ${perSecond(outcome.ceiling.perSecond, 'req')}`,
        ratio: outcome.project.perSecond / outcome.ceiling.perSecond,
        p50Ms: outcome.project.p50Ms,
        p99Ms: outcome.project.p99Ms,
        goal: atLeast(goal),
      }),
    );
  }
  return { rows, outcomes, koa: koa.child };
}

export async function capture(url: string, headers: Record<string, string>): Promise<CapturedResponse> {
  const response = await fetch(url, { headers });
  const body = Buffer.from(await response.arrayBuffer());
  if (response.status !== 200) throw new Error(`GET ${url} answered ${response.status}: ${body.toString('utf8').slice(0, 300)}`);
  const kept: Record<string, string> = {};
  response.headers.forEach((value, name) => {
    if (!PER_RESPONSE_HEADERS.has(name)) kept[name] = value;
  });
  return { headers: kept, bodyBase64: body.toString('base64') };
}

/** A few at a time: fixtures through the project's services, without queueing all on the ORM's pool. */
async function createPartnersInParallel(count: number, create: (index: number) => Promise<BenchPartner>): Promise<BenchPartner[]> {
  const partners: BenchPartner[] = [];
  for (let start = 0; start < count; start += 5) {
    partners.push(...(await Promise.all(Array.from({ length: Math.min(5, count - start) }, (_, offset) => create(start + offset)))));
  }
  return partners;
}
