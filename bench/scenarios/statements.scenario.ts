import { APP_ROLE } from '../../db/database-roles';
import { withClient } from '../database';
import type { RunResult } from '../load/run-result';
import { sleep } from '../processes';
import { reportRow } from '../report';
import type { ReportRow } from '../report';
import type { BenchContext } from './pairs';
import { projectLoad } from './workflow.scenarios';
import type { MoneyMovement } from './workflow.scenarios';

/**
 * SQL statements and transactions per money movement (issue 22), counted by Postgres itself:
 * pg_stat_statements (the bench's Postgres preloads it: stack.ts) for the statements the API and
 * the worker sent as payments_app, pg_stat_database for the transactions (commits and rollbacks,
 * single-statement ones included) and the transaction-id counter for the transactions that
 * wrote. Each money movement runs alone, its callers waiting for every operation to settle, between
 * quiet pauses; what the service does by itself meanwhile (schedules, watchers) is told apart
 * (see perOperation) and taken off.
 */

/**
 * An idle backend reports its transaction counts to pg_stat_database within 10 s (Postgres's
 * PGSTAT_IDLE_INTERVAL); pg_stat_statements counts at once. Every snapshot follows such a pause.
 */
const STATS_FLUSH_MS = 11_000;

/** The statements of the simulated bank (its state is a table): no production statement, counted apart. */
const SIMULATED_BANK = /\bsimulated_bank_/i;
const TRANSACTION_CONTROL = /^\s*(begin|start transaction|commit|end|rollback|savepoint|release)\b/i;

/**
 * The least each money movement needs, and why (docs/benchmarks.md, "Statements per operation"):
 * statements the API and the worker must send, and transactions that must commit.
 */
export const MINIMUM: Readonly<Record<MoneyMovement, { statements: number; transactions: number; label: string }>> = {
  exchange: { statements: 8, transactions: 4, label: 'exchange, its rate-lock fetch included' },
  cryptoWithdrawal: { statements: 14, transactions: 7, label: 'crypto withdrawal, settled' },
  sepaTransfer: { statements: 13, transactions: 6, label: 'SEPA transfer, settled' },
};

interface Snapshot {
  atMs: number;
  /** Calls of each normalised statement (by queryid), with its text. */
  statements: Map<string, { query: string; calls: number }>;
  /** Commits and rollbacks in the database, every role's. */
  transactions: number;
  /** The next transaction id: how many transactions wrote (or locked rows) so far. */
  nextXid: number;
}

/** What one money movement cost in SQL, per operation. */
export interface OperationStatements {
  operations: number;
  errors: number;
  /** Statements other than transaction control and the simulated bank's. */
  statements: number;
  /** BEGIN, COMMIT, ROLLBACK, SAVEPOINT and the like. */
  transactionControl: number;
  simulatedBank: number;
  /** The background's and occasional statements that ran meanwhile, not counted. */
  notCounted: number;
  /** Commits and rollbacks, single-statement transactions included, the simulated bank's taken off (one each). */
  transactions: number;
  /** Transactions that were given an id: those that wrote or locked rows (the simulated bank's writes taken off). */
  writingTransactions: number;
  /** The statements, most frequent first. */
  byStatement: Array<{ perOperation: number; kind: string; query: string }>;
}

export interface StatementsOutcome {
  /** What the service did by itself, per second of an idle pause. */
  background: { seconds: number; statementsPerSecond: number; transactionsPerSecond: number; writingPerSecond: number; queries: string[] };
  movements: Partial<Record<MoneyMovement, OperationStatements>>;
}

const MOVEMENTS: readonly MoneyMovement[] = ['exchange', 'cryptoWithdrawal', 'sepaTransfer'];

export async function runStatementsScenario(
  context: BenchContext,
): Promise<{ rows: ReportRow[]; outcome: StatementsOutcome; notes: string[] }> {
  const adminUrl = context.stack.databaseAdminUrl;
  const loads = new Map<MoneyMovement, (durationMs: number) => Promise<RunResult>>();
  for (const movement of MOVEMENTS) loads.set(movement, await projectLoad(context, movement));
  // One short run of each first, unrecorded: caches, prepared statements and pools warm, as in the timed runs.
  for (const movement of MOVEMENTS) await loads.get(movement)!(context.profile.warmupMs);

  // Autovacuum's own transactions count in pg_stat_database too, dozens at a time: paused while
  // counting (the timed scenarios ran with it).
  await setAutovacuum(adminUrl, false);
  let counted: StatementsOutcome;
  try {
    counted = await countEach(context, loads);
  } finally {
    await setAutovacuum(adminUrl, true).catch(() => undefined);
  }
  const { background, movements } = counted;

  const rows = MOVEMENTS.flatMap((movement) => {
    const counted = movements[movement];
    const minimum = MINIMUM[movement];
    if (!counted) return [];
    return [
      reportRow({
        scenario: `SQL per ${minimum.label}`,
        figure: `${counted.statements.toFixed(1)} statements, ${counted.writingTransactions.toFixed(1)} writing transactions (${counted.transactions.toFixed(1)} in all)`,
        ceiling: `minimum: ${minimum.statements} statements, ${minimum.transactions} writing transactions`,
        ratio: counted.statements / minimum.statements,
        p50Ms: null,
        p99Ms: null,
        goal: null,
      }),
    ];
  });
  const notes = [
    'SQL per operation: pg_stat_statements and pg_stat_database, background taken off ' +
      `(${background.statementsPerSecond.toFixed(2)} statements/s idle); statements exclude BEGIN/COMMIT ` +
      `(${MOVEMENTS.map((movement) => `${movement} ${movements[movement]?.transactionControl.toFixed(1) ?? '–'}`).join(', ')} per operation) ` +
      `and the simulated bank's (SEPA ${movements.sepaTransfer?.simulatedBank.toFixed(1) ?? '–'}); ratio is statements ÷ minimum ` +
      '(docs/benchmarks.md, "Statements per operation").',
  ];
  return { rows, outcome: { background, movements }, notes };
}

/** An idle pause (the background), then each money movement's run, each followed by a pause before Postgres's counts are read. */
async function countEach(
  context: BenchContext,
  loads: ReadonlyMap<MoneyMovement, (durationMs: number) => Promise<RunResult>>,
): Promise<StatementsOutcome> {
  const adminUrl = context.stack.databaseAdminUrl;
  context.log.info('statements: an idle pause, for what the service does by itself');
  await pause(context, STATS_FLUSH_MS);
  const idleFrom = await snapshot(adminUrl);
  await pause(context, STATS_FLUSH_MS);
  let from = await snapshot(adminUrl);
  const idle = difference(idleFrom, from);
  const idleIds = new Set(idle.statements.keys());
  const seconds = (from.atMs - idleFrom.atMs) / 1000;
  const background = {
    seconds,
    statementsPerSecond: sum(idle.statements.values()) / seconds,
    transactionsPerSecond: idle.transactions / seconds,
    writingPerSecond: idle.writing / seconds,
    queries: [...idle.statements.entries()].filter(([, calls]) => calls > 0).map(([id]) => from.statements.get(id)?.query ?? id),
  };
  const movements: StatementsOutcome['movements'] = {};
  for (const movement of MOVEMENTS) {
    context.lifecycle.checkpoint();
    const result = await loads.get(movement)!(context.profile.statementsMs);
    context.log.info(`statements: ${movement}: ${result.count} operations, ${result.errors} errors; waiting for Postgres's counts`);
    await pause(context, STATS_FLUSH_MS);
    const to = await snapshot(adminUrl);
    movements[movement] = perOperation(difference(from, to), to, result, (to.atMs - from.atMs) / 1000, { ...background, ids: idleIds });
    from = to;
  }
  return { background, movements };
}

async function setAutovacuum(adminUrl: string, on: boolean): Promise<void> {
  await withClient(adminUrl, async (client) => {
    await client.query(`alter system set autovacuum = ${on ? 'on' : 'off'}`);
    await client.query('select pg_reload_conf()');
  });
}

async function pause(context: BenchContext, ms: number): Promise<void> {
  await Promise.race([
    sleep(ms),
    new Promise<void>((resolve) => context.lifecycle.signal.addEventListener('abort', () => resolve(), { once: true })),
  ]);
  context.lifecycle.checkpoint();
}

/** One consistent read of the counters, as the embedded superuser (its own statements are not payments_app's). */
async function snapshot(adminUrl: string): Promise<Snapshot> {
  return withClient(adminUrl, async (client) => {
    await client.query('begin isolation level repeatable read');
    const statements = await client.query<{ id: string; query: string; calls: string }>(
      `select queryid::text as id, query, calls::text as calls from pg_stat_statements
        where userid = (select oid from pg_roles where rolname = $1)
          and dbid = (select oid from pg_database where datname = current_database())`,
      [APP_ROLE],
    );
    const database = await client.query<{ transactions: string; next_xid: string }>(
      `select (xact_commit + xact_rollback)::text as transactions,
              pg_snapshot_xmax(pg_current_snapshot())::text as next_xid
         from pg_stat_database where datname = current_database()`,
    );
    await client.query('commit');
    const row = database.rows[0];
    if (!row) throw new Error('pg_stat_database has no row for this database');
    return {
      atMs: Date.now(),
      statements: new Map(statements.rows.map((each) => [each.id, { query: each.query, calls: Number(each.calls) }])),
      transactions: Number(row.transactions),
      nextXid: Number(row.next_xid),
    };
  });
}

/** Calls per statement, transactions and writing transactions between two snapshots; the earlier snapshot's own transaction is the bench's. */
function difference(from: Snapshot, to: Snapshot): { statements: Map<string, number>; transactions: number; writing: number } {
  const statements = new Map<string, number>();
  for (const [id, { calls }] of to.statements) {
    const delta = calls - (from.statements.get(id)?.calls ?? 0);
    if (delta > 0) statements.set(id, delta);
  }
  return { statements, transactions: to.transactions - from.transactions - 1, writing: to.nextXid - from.nextXid };
}

/**
 * Fewer calls per operation than this, outside the steady background: a schedule or a watcher
 * that ran meanwhile, or the API's throttled last-use stamp of a key, not the operation itself.
 */
const OCCASIONAL_PER_OPERATION = 0.5;

type StatementKind = 'operation' | 'transaction control' | 'simulated bank' | 'background' | 'occasional';

/**
 * Per operation. Statements the idle pause also saw (the webhook dispatcher's claim, pool health
 * checks) are the background, and so are rarer ones than one every other operation (the
 * reconciliation or incoming-SEPA schedule firing meanwhile); each of those, and each simulated
 * bank statement, is taken as a transaction of its own (pool queries) and taken off the transactions.
 */
function perOperation(
  delta: ReturnType<typeof difference>,
  to: Snapshot,
  result: RunResult,
  seconds: number,
  background: StatementsOutcome['background'] & { ids: ReadonlySet<string> },
): OperationStatements {
  const operations = Math.max(1, result.count);
  const calls: Record<StatementKind, number> = {
    operation: 0,
    'transaction control': 0,
    'simulated bank': 0,
    background: 0,
    occasional: 0,
  };
  let notOursWriting = 0;
  const byStatement: OperationStatements['byStatement'] = [];
  for (const [id, count] of delta.statements) {
    const query = to.statements.get(id)?.query ?? id;
    const kind: StatementKind = TRANSACTION_CONTROL.test(query)
      ? 'transaction control'
      : SIMULATED_BANK.test(query)
        ? 'simulated bank'
        : background.ids.has(id)
          ? 'background'
          : count / operations < OCCASIONAL_PER_OPERATION
            ? 'occasional'
            : 'operation';
    calls[kind] += count;
    if ((kind === 'simulated bank' || kind === 'occasional') && WRITES.test(query)) notOursWriting += count;
    byStatement.push({ perOperation: count / operations, kind, query: query.replace(/\s+/g, ' ').slice(0, 240) });
  }
  byStatement.sort((a, b) => b.perOperation - a.perOperation);
  const round = (value: number) => Math.round(value * 100) / 100;
  const notOurs = calls['simulated bank'] + calls.background + calls.occasional;
  return {
    operations: result.count,
    errors: result.errors,
    statements: round(calls.operation / operations),
    transactionControl: round(calls['transaction control'] / operations),
    simulatedBank: round(calls['simulated bank'] / operations),
    notCounted: round((calls.background + calls.occasional) / operations),
    transactions: round((delta.transactions - notOurs) / operations),
    writingTransactions: round((delta.writing - notOursWriting - background.writingPerSecond * seconds) / operations),
    byStatement: byStatement.map((entry) => ({ ...entry, perOperation: round(entry.perOperation) })),
  };
}

const WRITES = /^\s*(insert|update|delete)\b/i;

function sum(values: Iterable<number>): number {
  let total = 0;
  for (const value of values) total += value;
  return total;
}
