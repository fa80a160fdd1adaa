/**
 * `npm run bench` (issue 8): the stack on ports of its own, every scenario beside its ceiling in
 * the same run (A B A B), one table on stdout and bench/results/latest.json. `--long` for
 * steadier figures; `--only=a,b` for some scenarios. Progress goes to stderr, child logs to
 * bench/results/logs/. Everything started is stopped at the end, on an error and on Ctrl-C.
 * Figures only: nothing here passes or fails on timing.
 */
import { parsePayloadKeys } from '../core/payload-codec';
import { temporalDataConverter } from '../core/temporal-connection';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Client, Connection } from '@temporalio/client';
import { withClient } from './database';
import { createLogger } from '../core/logger';
import type { Logger } from '../core/logger';
import { openOrm } from '../db/orm';
import { Lifecycle } from './lifecycle';
import { residentBytes } from './processes';
import type { BenchChild } from './processes';
import { PROFILES } from './profile';
import type { Profile } from './profile';
import { formatTable, megabytes, reportRow, writeJson } from './report';
import type { ReportRow } from './report';
import { runHistoryCurveScenario } from './scenarios/history-curve.scenario';
import { runBalancesScenario, runHistoryScenario } from './scenarios/http.scenarios';
import { runLedgerScenario } from './scenarios/ledger.scenario';
import type { BenchContext } from './scenarios/pairs';
import { movementNotes } from './scenarios/movement-notes';
import { runStatementsScenario } from './scenarios/statements.scenario';
import { runExchangeScenario, runSepaScenario, runTemporalServerScenario, runWithdrawalScenario } from './scenarios/workflow.scenarios';
import { runBtcWithdrawalScenario } from './scenarios/btc-withdrawal.scenario';
import { SCENARIOS, TABLE_ORDER } from './scenario-names';
import type { ScenarioName } from './scenario-names';
import { startStack } from './stack';
import type { BenchStack } from './stack';

const RESULTS_DIR = path.join(__dirname, 'results');
const LOGS_DIR = path.join(RESULTS_DIR, 'logs');
/** Log folders kept from earlier runs (one per run, so runs side by side do not mix their logs). */
const KEPT_LOG_RUNS = 5;
const RESULTS_FILE = path.join(RESULTS_DIR, 'latest.json');

/** A terminal's Ctrl-C reaches tsx and this process at once (one relayed, one direct): not an insist. */
const REPEATED_SIGNAL_GRACE_MS = 3_000;

interface Arguments {
  profile: Profile;
  only: ReadonlySet<ScenarioName>;
}

function parseArguments(argv: readonly string[]): Arguments | 'help' {
  let profile = PROFILES.short;
  let only = new Set<ScenarioName>(SCENARIOS);
  for (const argument of argv) {
    if (argument === '--long') profile = PROFILES.long;
    else if (argument === '--help' || argument === '-h') return 'help';
    else if (argument.startsWith('--only=')) {
      const names = argument.slice('--only='.length).split(',').filter(Boolean);
      const unknown = names.filter((name) => !(SCENARIOS as readonly string[]).includes(name));
      if (unknown.length > 0 || names.length === 0)
        throw new Error(`--only takes some of ${SCENARIOS.join(', ')}; got ${unknown.join(', ') || 'nothing'}`);
      only = new Set(names as ScenarioName[]);
    } else throw new Error(`unknown argument ${argument}; try --help`);
  }
  return { profile, only };
}

const HELP = `npm run bench [-- --long] [-- --only=${SCENARIOS.join(',')}]
  Starts Postgres, Temporal, the worker and the API on free ports of their own, runs each
  scenario beside its ceiling (A B A B), prints one table and writes ${path.relative(process.cwd(), RESULTS_FILE)}.
  --long   longer runs (steadier figures; several times longer)
  --only   only these scenarios (RSS is always read at the end)`;

interface Collected {
  rows: Map<string, ReportRow[]>;
  details: Record<string, unknown>;
  notes: string[];
  /** Each HTTP scenario's bare Koa, for the RSS line at the end. */
  bareKoa: BenchChild[];
}

type ScenarioOutcome = { rows: ReportRow[]; details: unknown; notes?: string[]; koa?: BenchChild };

async function runScenario(name: ScenarioName, context: BenchContext): Promise<ScenarioOutcome> {
  switch (name) {
    case 'balances':
    case 'history': {
      const { rows, outcomes, koa } = await (name === 'balances' ? runBalancesScenario(context) : runHistoryScenario(context));
      return { rows, details: outcomes, koa };
    }
    case 'history-curve': {
      const result = await runHistoryCurveScenario(context);
      const note = result.paged
        ? 'history curve: the route takes ?limit=, so "first page" is ?limit=20.'
        : 'history curve: the route refuses ?limit= (400): it has no pages yet, so the first page is the whole month.';
      return { rows: result.rows, details: { paged: result.paged, points: result.points }, notes: [note] };
    }
    case 'ledger': {
      const { rows, outcomes } = await runLedgerScenario(context);
      return {
        rows,
        details: { outcomes },
        notes: [
          'ledger: db/ledger through a pg pool, each call one statement and its own transaction (bench/scenarios/project-transfer.ts). ' +
            'Reserve + post is two durable commits (a hold, then its settlement, as a withdrawal does); the plain-SQL ceiling is one.',
        ],
      };
    }
    case 'temporal': {
      const { row, outcome } = await runTemporalServerScenario(context);
      return { rows: [row], details: outcome };
    }
    case 'exchange': {
      const { row, outcome } = await runExchangeScenario(context);
      return {
        rows: [row],
        details: outcome,
        notes: [
          'exchange: the rate-lock fetch before each exchange is not in the latency; it is in the throughput (closed loop).',
          ...movementNotes('exchange', outcome),
        ],
      };
    }
    case 'withdrawal': {
      const { rows, outcome } = await runWithdrawalScenario(context);
      const statuses = await withdrawalStatuses(context.stack.databaseUrl);
      const counts = Object.entries(statuses).map(([status, count]) => `${count} ${status}`);
      return {
        rows,
        details: { ...outcome, statusesAtEnd: statuses },
        notes: [
          `withdrawal and SEPA transfer: each caller awaits its payment's early answer, then its settlement; the simulated chain and bank answer at once. Withdrawals when the last run ended: ${counts.join(', ')}.`,
          ...movementNotes('crypto withdrawal', outcome),
        ],
      };
    }
    case 'btc':
      return runBtcWithdrawalScenario(context);
    case 'sepa': {
      const { rows, outcome } = await runSepaScenario(context);
      return {
        rows,
        details: outcome,
        notes: movementNotes('SEPA transfer', outcome),
      };
    }
    case 'statements': {
      const { rows, outcome, notes } = await runStatementsScenario(context);
      return { rows, details: outcome, notes };
    }
  }
}

/** Each scenario in turn; one that fails is reported in the table and the notes, and the others still run. */
async function runScenarios(args: Arguments, context: BenchContext): Promise<Collected> {
  const collected: Collected = { rows: new Map(), details: {}, notes: [], bareKoa: [] };
  for (const name of SCENARIOS) {
    if (!args.only.has(name)) continue;
    context.lifecycle.checkpoint();
    context.log.info(`── ${name}`);
    try {
      const outcome = await runScenario(name, context);
      collected.rows.set(name, outcome.rows);
      collected.details[name] = outcome.details;
      collected.notes.push(...(outcome.notes ?? []));
      if (outcome.koa) collected.bareKoa.push(outcome.koa);
    } catch (error) {
      if (context.lifecycle.stopRequested) throw error;
      const message = error instanceof Error ? error.message : String(error);
      context.log.error(`${name} failed: ${error instanceof Error ? (error.stack ?? message) : message}`);
      collected.rows.set(name, [failedRow(name)]);
      collected.details[name] = { failed: message };
      collected.notes.push(`${name} FAILED: ${message.split('\n')[0] ?? ''}`);
    }
  }
  return collected;
}

function failedRow(name: string): ReportRow {
  return reportRow({
    scenario: `${name}: FAILED (see notes)`,
    figure: '–',
    ceiling: '–',
    ratio: null,
    p50Ms: null,
    p99Ms: null,
    goal: null,
  });
}

/** RSS of each child at the end of the run, from /proc: the API beside bare Koa, the worker beside the empty-workflow worker. */
function rssRows(stack: BenchStack, bareKoa: BenchChild | undefined): { rows: ReportRow[]; rss: Record<string, number | null> } {
  const rss = {
    api: residentBytes(stack.api.pid),
    worker: residentBytes(stack.worker.pid),
    bareKoa: bareKoa ? residentBytes(bareKoa.pid) : null,
    ceilingWorker: residentBytes(stack.ceilingWorker.pid),
  };
  const ratio = (a: number | null, b: number | null) => (a === null || b === null ? null : a / b);
  return {
    rss,
    rows: [
      reportRow({
        scenario: 'RSS at the end, API process (informative)',
        figure: megabytes(rss.api),
        ceiling: `bare Koa: ${megabytes(rss.bareKoa)}`,
        ratio: ratio(rss.api, rss.bareKoa),
        p50Ms: null,
        p99Ms: null,
        goal: null,
      }),
      reportRow({
        scenario: 'RSS at the end, worker process (informative)',
        figure: megabytes(rss.worker),
        ceiling: `empty-workflow worker: ${megabytes(rss.ceilingWorker)}`,
        ratio: ratio(rss.worker, rss.ceilingWorker),
        p50Ms: null,
        p99Ms: null,
        goal: null,
      }),
    ],
  };
}

async function withdrawalStatuses(databaseUrl: string): Promise<Record<string, number>> {
  return withClient(databaseUrl, async (client) => {
    const result = await client.query<{ status: string; count: string }>(
      'select status, count(*) from crypto_withdrawal group by status order by status',
    );
    return Object.fromEntries(result.rows.map((row) => [row.status, Number(row.count)]));
  });
}

async function bench(args: Arguments, lifecycle: Lifecycle, log: Logger): Promise<void> {
  const startedAt = new Date();
  const logDir = newLogDir(startedAt);
  log.info(`child process logs in ${path.relative(process.cwd(), logDir)}/`);
  const stack = await startStack(lifecycle, log, logDir);
  lifecycle.checkpoint();
  const orm = await openOrm(stack.databaseUrl, 4);
  lifecycle.add('bench ORM', () => orm.close(true));
  const connection = await Connection.connect({ address: stack.temporalAddress });
  lifecycle.add('bench Temporal client', () => connection.close());
  // The project's workflows' payloads are encrypted; the ceiling's are plain (its worker has no codec), as a minimal program's
  // would be. Two clients on one connection: the project's refuses plaintext payloads, as every client of ours does.
  const client = new Client({
    connection,
    namespace: stack.namespace,
    dataConverter: temporalDataConverter({ payloadKeys: parsePayloadKeys(stack.payloadKeys) }),
  });
  const ceilingClient = new Client({ connection, namespace: stack.namespace });

  const context: BenchContext = {
    lifecycle,
    log,
    profile: args.profile,
    stack,
    orm,
    client,
    ceilingClient,
    processes: [stack.api, stack.worker, stack.ceilingWorker],
  };
  const collected = await runScenarios(args, context);
  const { rows: memoryRows, rss } = rssRows(stack, collected.bareKoa[0]);
  collected.rows.set('rss', memoryRows);

  const finishedAt = new Date();
  const rows = TABLE_ORDER.flatMap((name) => collected.rows.get(name) ?? []);
  const durationSeconds = Math.round((finishedAt.getTime() - startedAt.getTime()) / 1000);
  const heading = `npm run bench (${args.profile.name}) on ${finishedAt.toISOString()}: ${os.cpus().length} cores, Node ${process.version}, ${durationSeconds} s in all`;
  const errorRuns = Object.values(collected.details).flatMap(failedRunsOf);
  const notes = [...collected.notes, ...errorRuns.map((run) => `errors in "${run}"`)];
  const noteLines = notes.length === 0 ? '' : `${notes.map((note) => `- ${note}`).join('\n')}\n\n`;
  process.stdout.write(`\n${heading}\n\n${formatTable(rows)}\n\n${noteLines}`);
  writeJson(RESULTS_FILE, {
    startedAt: startedAt.toISOString(),
    finishedAt: finishedAt.toISOString(),
    durationSeconds,
    profile: args.profile,
    machine: {
      cores: os.cpus().length,
      cpu: os.cpus()[0]?.model ?? 'unknown',
      node: process.version,
      platform: `${os.platform()} ${os.release()}`,
    },
    rows,
    notes,
    rssBytes: rss,
    details: collected.details,
  });
  process.stdout.write(`written ${path.relative(process.cwd(), RESULTS_FILE)}; child logs in ${path.relative(process.cwd(), logDir)}/\n`);
}

/** bench/results/logs/<start time>-<pid>/, after removing all but the latest few earlier ones. */
function newLogDir(startedAt: Date): string {
  fs.mkdirSync(LOGS_DIR, { recursive: true });
  const earlier = fs
    .readdirSync(LOGS_DIR)
    .filter((name) => /^\d{4}-/.test(name))
    .sort();
  for (const old of earlier.slice(0, Math.max(0, earlier.length - KEPT_LOG_RUNS + 1))) {
    fs.rmSync(path.join(LOGS_DIR, old), { recursive: true, force: true });
  }
  const logDir = path.join(LOGS_DIR, `${startedAt.toISOString().replace(/[:.]/g, '-')}-${process.pid}`);
  fs.mkdirSync(logDir, { recursive: true });
  return logDir;
}

/** Labels of recorded runs that had errors, wherever they sit in a scenario's details. */
function failedRunsOf(details: unknown): string[] {
  if (Array.isArray(details)) return details.flatMap(failedRunsOf);
  if (typeof details !== 'object' || details === null) return [];
  const record = details as Record<string, unknown>;
  if (typeof record.label === 'string' && typeof record.errors === 'number') {
    return record.errors > 0 ? [`${record.label}: ${record.errors} (${String(record.firstError)})`] : [];
  }
  return Object.values(record).flatMap(failedRunsOf);
}

function onSignals(lifecycle: Lifecycle, log: Logger): void {
  let firstAtMs: number | undefined;
  const handler = (signal: NodeJS.Signals) => {
    if (firstAtMs === undefined) {
      firstAtMs = Date.now();
      log.warn(`${signal}: stopping everything the bench started (again after ${REPEATED_SIGNAL_GRACE_MS / 1000} s to kill at once)`);
      lifecycle.requestStop(signal);
    } else if (Date.now() - firstAtMs > REPEATED_SIGNAL_GRACE_MS) {
      lifecycle.killAll();
      process.exit(130);
    }
  };
  process.on('SIGINT', handler);
  process.on('SIGTERM', handler);
  // A connection dropped under a library (Postgres stopping on the same Ctrl-C) must not end the
  // bench before it has stopped the rest: whatever was not handled stops the run in order.
  process.on('uncaughtException', (error) => {
    log.error(`unexpected: ${error.stack ?? error.message}`);
    lifecycle.requestStop('unexpected error');
  });
}

async function main(): Promise<number> {
  const parsed = parseArguments(process.argv.slice(2));
  if (parsed === 'help') {
    process.stdout.write(`${HELP}\n`);
    return 0;
  }
  const log = createLogger('bench', 'info');
  const lifecycle = new Lifecycle();
  onSignals(lifecycle, log);
  try {
    await bench(parsed, lifecycle, log);
    return 0;
  } catch (error) {
    if (lifecycle.stopRequested) {
      const reason = lifecycle.signal.reason instanceof Error ? lifecycle.signal.reason.message : 'stop requested';
      log.warn(`stopped before the end (${reason}): no table`);
      return reason === 'SIGINT' || reason === 'SIGTERM' ? 130 : 1;
    }
    log.error(`bench failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`);
    return 1;
  } finally {
    await lifecycle.stopAll((message) => log.info(message));
  }
}

main().then(
  (code) => process.exit(code),
  (error: unknown) => {
    process.stderr.write(`${error instanceof Error ? error.message : String(error)}\n`);
    process.exit(1);
  },
);
