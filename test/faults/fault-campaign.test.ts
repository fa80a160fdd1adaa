import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Client, Connection } from '@temporalio/client';
import { temporal } from '@temporalio/proto';
import pg from 'pg';
import { evmDepositWatcherContract, incomingSepaContract } from '../../contracts';
import { parsePayloadKeys } from '../../core/payload-codec';
import { temporalDataConverter } from '../../core/temporal-connection';
import { openOrm } from '../../db/orm';
import { createTestPartner } from '../support/fixtures';
import { DepositLoad } from './support/deposit-load';
import { verifyDeposits } from './support/deposit-verify';
import type { DepositVerdict } from './support/deposit-verify';
import { DEPOSIT_BOUNDARIES, FAULT_BOUNDARIES, faultKillAt, faultMarkerPath } from './support/fault-points';
import type { FaultMarker } from './support/fault-points';
import { FaultStack, sleep } from './support/harness';
import type { StackProcess } from './support/harness';
import { LoadGenerator } from './support/load';
import type { LoadOptions, OperationKind, OperationRecord } from './support/load';
import { createFundedPartner, formatTable, verifyPhase } from './support/verify';
import type { PhaseRow, PhaseVerdict } from './support/verify';

/**
 * The fault campaign: two API processes and two worker processes on one Temporal dev
 * server and one Postgres, under a steady load of mixed operations through both APIs, and one
 * fault at a time: Postgres killed and restarted, the Temporal server killed and restarted, a
 * worker killed at each activity boundary in turn, an API process killed mid-request. After each:
 * every accepted operation reaches a final state, no money moves twice (withdrawals are paid on
 * real nodes, btc on btcd, ltc on litecoind and pol on polygon's, each read back from its node), no hold is
 * orphaned, the ledger check is clean, and the API answered only 2xx, 4xx or 503. Money comes in all along
 * (support/deposit-load.ts: eth and usdc sent on chain to a partner's deposit addresses, SEPA
 * credits at the simulated bank, some delivered twice), and after each fault every deposit is
 * credited exactly once (support/deposit-verify.ts); in (c) the worker is also killed at each
 * boundary of the deposit watcher and the SEPA ingest. A table of what was injected and found is
 * printed at the end. `npm run test:faults`.
 */

let stack: FaultStack;
const rows: PhaseRow[] = [];
const campaignStart = Date.now();

beforeAll(async () => {
  stack = await FaultStack.start({ apis: 2, workers: 2 });
  await watcherStarted();
  process.stderr.write(`fault campaign stack up in ${Math.round((Date.now() - campaignStart) / 1000)} s: ${stack.dir}\n`);
}, 300_000);

afterAll(async () => {
  // The stack stops whatever the report does.
  try {
    if (stack) reportUnclassifiedDatabaseErrors();
    process.stderr.write(`\nFault campaign (${Math.round((Date.now() - campaignStart) / 1000)} s):\n${formatTable(rows)}\n\n`);
    if (released.size > 0) {
      const counts = [...released].map(([activityType, count]) => `${activityType} ${count}`).join(', ');
      process.stderr.write(`dead workers' money-in attempts reported failed at once (not after their heartbeat timeout): ${counts}\n\n`);
    }
  } finally {
    await stack?.stop();
  }
}, 120_000);

/**
 * Activity failures the worker classed as "a database statement failed (SQLSTATE unknown)": while
 * the database is down every error should read as unavailable (retried, 503 at the API). Not a
 * failure of the campaign (the activity is retried either way), but worth knowing: printed.
 */
function reportUnclassifiedDatabaseErrors(): void {
  const found: string[] = [];
  for (const file of fs.readdirSync(path.join(stack.dir, 'logs'))) {
    for (const line of fs.readFileSync(path.join(stack.dir, 'logs', file), 'utf8').split('\n')) {
      if (!line.includes('SQLSTATE unknown')) continue;
      let entry: { time?: string; activityType?: string; isLocal?: boolean; msg?: string; error?: unknown };
      try {
        entry = JSON.parse(line) as typeof entry;
      } catch {
        found.push(`${file}: (not a JSON line) ${line.slice(0, 200)}`);
        continue;
      }
      // The failure's message names the error classes along its chain (never the statement).
      const failure = JSON.stringify(entry.error ?? '').slice(0, 400);
      found.push(`${file}: ${entry.time} ${entry.activityType ?? ''}${entry.isLocal ? ' (local)' : ''} ${entry.msg ?? ''} ${failure}`);
    }
  }
  if (found.length > 0) {
    process.stderr.write(
      `\nactivity failures classed "database-error (SQLSTATE unknown)" (${found.length}):\n  ${found.slice(0, 10).join('\n  ')}\n`,
    );
  }
}

/** Before each phase: Postgres, Temporal, both APIs and (at least) two production workers run. */
async function everythingUp(): Promise<void> {
  if (!stack.postgres.running) await stack.postgres.start();
  if (!stack.temporal.running) await stack.temporal.start();
  for (const api of stack.apis) if (!api.running) await api.start();
  const missing = 2 - stack.workers.filter((worker) => worker.running).length;
  await Promise.all(Array.from({ length: Math.max(0, missing) }, () => stack.addWorker()));
}

interface Phase {
  fault: string;
  load: Omit<LoadOptions, 'apiUrls' | 'apiKey' | 'label'>;
  /** Runs while the load runs, with the deposits under way; the load stops when it returns. */
  inject(load: LoadGenerator, deposits: DepositLoad): Promise<void>;
  /** Further checks on the phase's records; each string a finding that fails it. */
  check?(load: LoadGenerator): Promise<string[]>;
  settleTimeoutMs?: number;
}

async function runPhase(phase: Phase): Promise<{ verdict: PhaseVerdict; load: LoadGenerator; deposits: DepositVerdict }> {
  await everythingUp();
  const startedAt = Date.now();
  const partner = await createFundedPartner(stack.databaseUrl);
  const load = new LoadGenerator({
    ...phase.load,
    apiUrls: stack.apiUrls,
    apiKey: partner.apiKey,
    label: phase.fault.replace(/[^A-Za-z0-9]+/g, '-').slice(0, 40),
  });
  // The money coming in goes to a partner of its own: its balances are exactly what arrived.
  const orm = await openOrm(stack.databaseUrl, 2);
  const depositPartner = await createTestPartner(orm);
  const deposits = await DepositLoad.prepare({
    evm: stack.evm,
    orm,
    databaseUrl: stack.databaseUrl,
    partner: depositPartner,
    label: /^\((\w)\)/.exec(phase.fault)?.[1]?.toUpperCase() ?? 'X',
  });
  let stoppedAt: number;
  let verdict: PhaseVerdict;
  let depositVerdict: DepositVerdict;
  let answeredAt: number;
  try {
    load.start();
    deposits.start();
    try {
      await phase.inject(load, deposits);
    } finally {
      stoppedAt = Date.now();
      await Promise.all([load.stop(), deposits.stop()]);
    }
    answeredAt = Date.now();
    verdict = await verifyPhase({
      fault: phase.fault,
      databaseUrl: stack.databaseUrl,
      apiUrls: stack.apiUrls,
      partner,
      records: load.records,
      statuses: load.statuses,
      settleTimeoutMs: phase.settleTimeoutMs ?? 90_000,
      extraProblems: phase.check ? await phase.check(load) : [],
      utxo: {
        bitcoin: { rpcUrl: stack.bitcoin.node.rpcUrl, hotWalletKey: stack.bitcoin.hotWalletKey },
        litecoin: { rpcUrl: stack.litecoin.node.rpcUrl, hotWalletKey: stack.litecoin.hotWalletKey },
      },
      polygon: { rpcUrl: stack.polygon.rpcUrl },
    });
    depositVerdict = await verifyDeposits({
      fault: phase.fault,
      load: deposits,
      databaseUrl: stack.databaseUrl,
      apiUrls: stack.apiUrls,
      partner: depositPartner,
      settleTimeoutMs: phase.settleTimeoutMs ?? 90_000,
      ledger: '(in the row above)',
    });
  } finally {
    await deposits.close();
    await orm.close(true);
  }
  const seconds = (from: number, to: number) => `${Math.round((to - from) / 1000)} s`;
  process.stderr.write(
    `${phase.fault}: load ${seconds(startedAt, stoppedAt)}, last answers ${seconds(stoppedAt, answeredAt)} later, ` +
      `all final and checked ${seconds(answeredAt, Date.now())} after that\n`,
  );
  report(verdict, load);
  report(depositVerdict);
  return { verdict, load, deposits: depositVerdict };
}

/** Deposits before the watcher's first batch are never read (it starts at the head): the campaign starts once it has a cursor. */
async function watcherStarted(): Promise<void> {
  const pool = new pg.Pool({ connectionString: stack.databaseUrl, max: 1 });
  try {
    const deadline = Date.now() + 60_000;
    while (Date.now() < deadline) {
      const rows = await pool.query(`select 1 from evm_deposit_cursor where network = 'ethereum'`);
      if (rows.rowCount === 1) return;
      await sleep(250);
    }
    throw new Error('the ethereum deposit watcher did not start within 60 s');
  } finally {
    await pool.end();
  }
}

function report(verdict: PhaseRow & { problems: string[] }, load?: LoadGenerator): void {
  rows.push(verdict);
  const details = [
    `${verdict.fault}: ${verdict.result}`,
    ...verdict.problems.map((problem) => `  - ${problem}`),
    ...(load?.unexpectedAnswers
      .slice(0, 5)
      .map((answer) => `  - ${answer.status} from api-${answer.api + 1} ${answer.path}: ${answer.body}`) ?? []),
  ];
  process.stderr.write(`${details.join('\n')}\n`);
}

/** Which worker processes (Temporal identities) ran the activity tasks of these operations. */
async function activityIdentities(records: readonly OperationRecord[]): Promise<Set<string>> {
  const connection = await Connection.connect({ address: stack.temporalAddress });
  try {
    const client = new Client({ connection, namespace: 'default' });
    const identities = new Set<string>();
    const payments = records.filter((record) => record.kind !== 'exchange').slice(0, 30);
    for (const record of payments) {
      const history = await client.workflow.getHandle(`${record.kind}-${record.operationId}`).fetchHistory();
      for (const event of history.events ?? []) {
        const identity = event.activityTaskStartedEventAttributes?.identity;
        if (identity) identities.add(identity);
      }
    }
    return identities;
  } finally {
    await connection.close();
  }
}

describe('fault campaign', () => {
  it('(0) baseline: two API and two worker processes serve concurrent operations through both APIs', async () => {
    const { verdict, deposits } = await runPhase({
      fault: '(0) none: 2 APIs + 2 workers',
      load: { callers: 6 },
      inject: () => sleep(8_000),
      async check(load) {
        const problems: string[] = [];
        const accepted = load.accepted();
        const servedBy = new Set(accepted.map((record) => record.servedBy));
        if (servedBy.size < 2) problems.push(`operations were accepted by ${servedBy.size} API process(es), not both`);
        const identities = await activityIdentities(accepted);
        process.stderr.write(`activity tasks ran on: ${[...identities].join(', ')}\n`);
        if (identities.size < 2) problems.push(`activity tasks ran on ${identities.size} worker process(es), not both`);
        return problems;
      },
    });
    expect({ problems: verdict.problems, deposits: deposits.problems }).toEqual({ problems: [], deposits: [] });
  }, 150_000);

  /** Kills the process 3 s into the load, starts it again on its data 7 s later, and lets the load run on. */
  async function killAndRestart(fault: string, target: () => StackProcess): Promise<void> {
    const { verdict, deposits } = await runPhase({
      fault,
      load: { callers: 6 },
      async inject() {
        await sleep(3_000);
        await target().kill();
        await sleep(7_000);
        await target().start();
        await sleep(6_000);
      },
    });
    expect({ problems: verdict.problems, deposits: deposits.problems }).toEqual({ problems: [], deposits: [] });
  }

  it('(a) Postgres killed (SIGKILL) under load and restarted 7 s later', async () => {
    await killAndRestart('(a) Postgres SIGKILL, restart after 7 s', () => stack.postgres);
  }, 240_000);

  it('(b) the Temporal dev server killed (SIGKILL) under load and restarted on the same database 7 s later', async () => {
    await killAndRestart('(b) Temporal SIGKILL, restart after 7 s', () => stack.temporal);
  }, 240_000);

  it('(c) a worker killed (SIGKILL) at each activity boundary of a withdrawal, a SEPA transfer, an exchange, the deposit watcher and the SEPA ingest in turn', async () => {
    const boundaryRows: Array<PhaseRow & { workflowId?: string }> = [];
    const depositRows: DepositBoundaryRow[] = [];
    const { verdict, load, deposits } = await runPhase({
      fault: '(c) worker SIGKILL at every boundary (all)',
      // One caller per kind (withdrawals, SEPA transfers, exchanges): each boundary is reached within a second or two.
      load: { callers: 3, kindsOfCaller: (caller) => [CALLER_KINDS[caller]!], pauseMs: 200 },
      settleTimeoutMs: 120_000,
      async inject(_load, depositLoad) {
        await stack.stopWorkers();
        // Regular activities first: a dead worker's activity is retried only after its timeout
        // (heartbeat 30 s, start-to-close 30 s or 1 min), so those waits overlap with the rest.
        // Then the exchange's: a kill there holds its caller's answer until the workflow task
        // times out (10 s) or the API's deadline (15 s), a wait the later boundaries overlap.
        const order = (boundary: (typeof FAULT_BOUNDARIES)[number]) => (!boundary.local ? 0 : boundary.operation === 'exchange' ? 1 : 2);
        const queue = [...FAULT_BOUNDARIES].sort((a, b) => order(a) - order(b));
        // Two fault workers at a time, each waiting for its own boundary; a new one replaces each that died.
        const slot = async () => {
          for (let boundary = queue.shift(); boundary; boundary = queue.shift()) {
            const at = faultKillAt(boundary);
            const marker = faultMarkerPath(stack.markerDir, boundary.activityType, boundary.moment, boundary.network);
            let hit: FaultMarker | undefined;
            // Longer than the longest activity timeout (1 min): the caller's operation may be waiting out
            // a retry of an activity an earlier kill cut short before it reaches this boundary.
            let failure = 'the boundary was not reached in 90 s';
            try {
              const worker = await stack.addWorker({ faultKillAt: at, done: () => fs.existsSync(marker) });
              hit = await waitForMarker(marker, worker, 90_000);
              await worker.kill();
              if (hit) await releaseDeadAttempts(hit.pid, () => false);
            } catch (error) {
              failure = error instanceof Error ? error.message : String(error);
            }
            boundaryRows.push({
              fault: `(c) worker SIGKILL at ${at}${boundary.local ? ' (local)' : ''}`,
              accepted: 0,
              final: 0,
              doubled: 0,
              orphanHolds: 0,
              ledger: '',
              statuses: '',
              result: hit ? '' : `FAIL: ${failure}`,
              passed: hit !== undefined,
              ...(hit ? { workflowId: hit.workflowId } : {}),
            });
          }
        };
        // Beside them, a third: the deposit watcher's and the SEPA ingest's boundaries (killDepositBoundaries).
        await Promise.all([slot(), slot(), killDepositBoundaries(depositLoad, depositRows)]);
        // Normal workers again: they finish what the killed ones left.
        await everythingUp();
        await sleep(3_000);
      },
    });
    // Each boundary's row: the operation the kill hit, and what became of it.
    const acceptedIds = new Set(load.accepted().map((record) => record.operationId));
    const fates = await fatesOf(boundaryRows);
    for (const row of boundaryRows) {
      const fate = row.workflowId ? fates.get(row.workflowId) : undefined;
      if (row.passed && fate) {
        const id = operationIdOf(row.workflowId!);
        const succeeded = fate.status === 'SUCCESSFUL' && fate.transferState === 'POSTED';
        // The API gave up waiting (its answer deadline) before the reservation (or the exchange)
        // ran: it voided the id (a tombstone), nothing moved, and the caller's retry of the key
        // made a new operation.
        const abandoned = fate.status === undefined && fate.transferState === 'VOIDED';
        // An exchange's retry of the key sends the same lock: it must have bought one exchange,
        // under a new id, that the caller was answered about.
        const exchange = row.workflowId!.startsWith('exchange-');
        const lockUsedBy = fate.lockUsedBy;
        const retried = !exchange || (lockUsedBy !== undefined && acceptedIds.has(lockUsedBy));
        row.accepted = acceptedIds.has(id) ? 1 : 0;
        row.final = fate.workflowStatus !== 'RUNNING' && fate.status !== 'IN_PROGRESS' ? 1 : 0;
        row.orphanHolds = fate.transferState === 'PENDING' && row.final === 1 ? 1 : 0;
        row.ledger = verdict.ledger;
        row.statuses = '(in the (c) row)';
        row.passed = row.final === 1 && (succeeded || (abandoned && retried));
        const retry = !exchange
          ? 'key retried as a new operation'
          : retried
            ? 'key retried: its lock bought one exchange, as a new operation'
            : lockUsedBy
              ? `but its lock bought exchange ${lockUsedBy}, which no caller was answered about`
              : 'but its lock was never used by a retry of the key';
        const outcome = abandoned
          ? `abandoned at the API deadline, nothing moved, ${retry}`
          : `${fate.status ?? 'no record'}${fate.network ? ` (on ${fate.network})` : ''}, transfer ${fate.transferState ?? 'none'}, workflow ${fate.workflowStatus}`;
        row.result = `${row.passed ? 'PASS' : 'FAIL'}: killed, then ${outcome}`;
      } else if (row.passed) {
        row.passed = false;
        row.result = 'FAIL: killed, but its operation could not be looked up';
      }
      rows.push(row);
    }
    rows.push(...(await judgeDepositBoundaries(depositRows, deposits)));
    const failedBoundaries = [...boundaryRows, ...depositRows].filter((row) => !row.passed).map((row) => `${row.fault}: ${row.result}`);
    expect({ problems: verdict.problems, deposits: deposits.problems, failedBoundaries }).toEqual({
      problems: [],
      deposits: [],
      failedBoundaries: [],
    });
  }, 600_000);

  it('(d) an API process killed (SIGKILL) mid-request during a burst of POSTs, and restarted', async () => {
    let killedMidRequest = 0;
    const { verdict, deposits } = await runPhase({
      fault: '(d) API SIGKILL mid-request, restart',
      load: { callers: 8 },
      async inject(load) {
        await sleep(3_000);
        const victim = stack.apis[0]!;
        // Mid-request: while the load has requests under way at that API.
        const until = Date.now() + 5_000;
        while (load.inFlight[0] === 0 && Date.now() < until) await sleep(5);
        killedMidRequest = load.inFlight[0]!;
        await victim.kill();
        await sleep(4_000);
        await victim.start();
        await sleep(5_000);
      },
      async check() {
        return killedMidRequest > 0 ? [] : ['no request was under way at the API when it was killed'];
      },
    });
    process.stderr.write(`(d) requests under way at api-1 when it was killed: ${killedMidRequest}\n`);
    expect({ problems: verdict.problems, deposits: deposits.problems }).toEqual({ problems: [], deposits: [] });
  }, 240_000);
});

/** A deposit boundary of (c): the kill, and (once judged) what became of the deposits it concerned. */
interface DepositBoundaryRow extends PhaseRow {
  boundary: (typeof DEPOSIT_BOUNDARIES)[number];
  hit?: FaultMarker;
  /** Its dead attempt was reported failed at once (releaseDeadAttempts), not after its heartbeat timeout. */
  cutShort?: boolean;
}

/** The money-in activities: a dead worker's attempt of one is reported failed at once (releaseDeadAttempts). */
const MONEY_IN_ACTIVITIES: ReadonlySet<string> = new Set(['scanEvmDeposits', 'ingestBankNotifications', 'advanceSepaReturns']);
/** What releaseDeadAttempts released, by activity type: printed with the table. */
const released = new Map<string, number>();

/**
 * A killed worker takes down whatever it was running, and a money-in activity it held waits for
 * its heartbeat timeout (the watcher's batch 30 s, the SEPA run's steps 1 min, one run at a time)
 * before another worker retries it: every kill of (c) would stall deposits for that long, and the
 * SEPA boundaries alone would queue five minutes. So once a worker is gone (its marker written,
 * its process group killed), the campaign reports its attempts of these activities failed by id,
 * which is what the heartbeat timeout records later, and the retry runs at once on a live worker.
 * Nothing else differs: the attempt's worker is dead either way. The watcher's own boundaries
 * (`keep`) wait out its real heartbeat timeout; the payments' activities are never touched.
 */
async function releaseDeadAttempts(pid: number, keep: (activityType: string) => boolean): Promise<string[]> {
  const identity = `${pid}@${os.hostname()}`;
  const connection = await Connection.connect({ address: stack.temporalAddress });
  const done: string[] = [];
  try {
    const dataConverter = temporalDataConverter({ payloadKeys: parsePayloadKeys(stack.payloadKeys) });
    const client = new Client({ connection, namespace: 'default', dataConverter });
    const workflows: Array<{ workflowId: string; runId?: string }> = [{ workflowId: evmDepositWatcherContract.workflowId('ethereum') }];
    for await (const execution of client.workflow.list({
      query: `WorkflowType = '${incomingSepaContract.workflowType}' AND ExecutionStatus = 'Running'`,
    })) {
      workflows.push({ workflowId: execution.workflowId, runId: execution.runId });
    }
    for (const { workflowId, runId } of workflows) {
      const description = await client.workflow.getHandle(workflowId, runId).describe();
      for (const pending of description.raw.pendingActivities ?? []) {
        const activityType = pending.activityType?.name ?? '';
        if (pending.lastWorkerIdentity !== identity || !MONEY_IN_ACTIVITIES.has(activityType) || keep(activityType)) continue;
        if (pending.state !== temporal.api.enums.v1.PendingActivityState.PENDING_ACTIVITY_STATE_STARTED) continue;
        try {
          await client.activity.fail(
            { workflowId, runId: description.runId, activityId: pending.activityId ?? '' },
            new Error(
              `fault campaign: worker ${identity} running this attempt was SIGKILLed; reported instead of waiting out the heartbeat timeout`,
            ),
          );
          done.push(activityType);
          released.set(activityType, (released.get(activityType) ?? 0) + 1);
        } catch {
          // Temporal moved on already (the timeout fired, or the attempt completed).
        }
      }
    }
  } catch (error) {
    // Then the timeouts take their course: slower, not wrong.
    process.stderr.write(
      `releasing the attempts of dead worker ${identity} failed: ${error instanceof Error ? error.message : String(error)}\n`,
    );
  } finally {
    await connection.close();
  }
  return done;
}

/**
 * (c)'s third slot: a fault worker per deposit boundary, one watcher boundary then the SEPA
 * ingest's next two: a kill of the watcher's batch waits out its 30 s heartbeat timeout, and the
 * SEPA boundaries are reached meanwhile. For `rewound`, reorganisations are made until a rewind
 * lands on the fault worker.
 */
async function killDepositBoundaries(deposits: DepositLoad, depositRows: DepositBoundaryRow[]): Promise<void> {
  const watcher = DEPOSIT_BOUNDARIES.filter((boundary) => boundary.chain === 'watcher');
  const sepa = DEPOSIT_BOUNDARIES.filter((boundary) => boundary.chain === 'sepa');
  const queue = watcher.flatMap((boundary, index) => [boundary, ...sepa.slice(index * 2, index * 2 + 2)]);
  queue.push(...sepa.slice(watcher.length * 2));
  for (const boundary of queue) {
    const at = `${boundary.activityType}:${boundary.moment}`;
    const marker = faultMarkerPath(stack.markerDir, boundary.activityType, boundary.moment);
    const row: DepositBoundaryRow = {
      boundary,
      fault: `(c) worker SIGKILL at ${at}: ${boundary.when}`,
      accepted: 0,
      final: 0,
      doubled: 0,
      orphanHolds: 0,
      ledger: '',
      statuses: '',
      result: 'FAIL: the boundary was not reached in 120 s',
      passed: false,
    };
    depositRows.push(row);
    let reorganising = boundary.moment === 'rewound';
    let reorganisations: Promise<void> = Promise.resolve();
    try {
      const worker = await stack.addWorker({ faultKillAt: at, done: () => fs.existsSync(marker) });
      reorganisations = (async () => {
        while (reorganising && !fs.existsSync(marker)) {
          await deposits.reorganise(40_000);
          await sleep(1_000);
        }
      })();
      row.hit = await waitForMarker(marker, worker, 120_000);
      await worker.kill();
      if (row.hit) {
        const keep = (activityType: string) => boundary.chain === 'watcher' && activityType === boundary.activityType;
        row.cutShort = (await releaseDeadAttempts(row.hit.pid, keep)).includes(boundary.activityType);
      }
    } catch (error) {
      row.result = `FAIL: ${error instanceof Error ? error.message : String(error)}`;
    } finally {
      reorganising = false;
      await reorganisations;
    }
  }
}

/**
 * Each deposit boundary's row, once the phase has settled: the boundary was hit, the phase's
 * deposits all ended as they must (each credited once, 0 doubled), and those the killed run had
 * in hand (the batch's blocks for `seen`, the entry for `credited`) among them.
 */
async function judgeDepositBoundaries(depositRows: DepositBoundaryRow[], deposits: DepositVerdict): Promise<DepositBoundaryRow[]> {
  const pool = new pg.Pool({ connectionString: stack.databaseUrl, max: 1 });
  try {
    for (const row of depositRows) {
      if (!row.hit) continue;
      const detail = row.hit.detail ?? '';
      let concerned: string[] = [];
      const blocks = /in blocks (\d+)\D+(\d+)/.exec(detail);
      const entry = /^incoming SEPA credit (\S+) credited/.exec(detail);
      if (row.boundary.moment === 'seen' && blocks) {
        const found = await pool.query<{ transaction_hash: string }>(
          `select transaction_hash from crypto_deposit where network = 'ethereum' and block_number between $1 and $2`,
          [blocks[1], blocks[2]],
        );
        concerned = found.rows.map((found) => found.transaction_hash.toLowerCase());
      }
      if (row.boundary.moment === 'credited' && entry) concerned = [entry[1]!];
      const standings = concerned.map((key) => deposits.standings.get(key));
      row.accepted = concerned.length;
      row.final = standings.filter((standing) => standing?.settled).length;
      row.doubled = standings.filter((standing) => standing?.doubled).length;
      row.ledger = deposits.ledger;
      row.statuses = '(in the (c) deposits row)';
      const needsConcerned = row.boundary.moment === 'seen' || row.boundary.moment === 'credited';
      row.passed = deposits.passed && row.final === concerned.length && row.doubled === 0 && (!needsConcerned || concerned.length > 0);
      const what =
        concerned.length > 0
          ? `${row.final} of its ${concerned.length} deposit(s) ended as they must`
          : 'every deposit of the phase ended as it must';
      row.result =
        `${row.passed ? 'PASS' : 'FAIL'}: killed${detail ? ` (${detail})` : ''}` +
        `${row.cutShort ? ', its attempt reported failed at once' : ''}, then ${deposits.passed ? what : `deposits: ${deposits.result}`}`;
    }
  } finally {
    await pool.end();
  }
  return depositRows;
}

/** The one kind of operation each of (c)'s callers sends. */
const CALLER_KINDS: readonly OperationKind[] = ['crypto-withdrawal', 'sepa-transfer', 'exchange'];

function operationIdOf(workflowId: string): string {
  return workflowId.replace(/^(crypto-withdrawal|sepa-transfer|exchange)-/, '');
}

interface Fate {
  workflowStatus: string;
  status: string | undefined;
  transferState: string | undefined;
  /** For an exchange's lock: the exchange that used it, if any. */
  lockUsedBy: string | undefined;
  /** A withdrawal's network. */
  network: string | undefined;
}

/**
 * What became of the operations these workflows run: the workflow's status (waited for, up to
 * 30 s, to close), the operation's and its ledger transfer's; for an exchange, who used its lock.
 */
async function fatesOf(workflows: ReadonlyArray<{ workflowId?: string }>): Promise<Map<string, Fate>> {
  const fates = new Map<string, Fate>();
  const connection = await Connection.connect({ address: stack.temporalAddress });
  const pool = new pg.Pool({ connectionString: stack.databaseUrl, max: 2 });
  try {
    // describe() decodes the memo: the campaign's payload key.
    const dataConverter = temporalDataConverter({ payloadKeys: parsePayloadKeys(stack.payloadKeys) });
    const client = new Client({ connection, namespace: 'default', dataConverter });
    const deadline = Date.now() + 30_000;
    for (const { workflowId } of workflows) {
      if (!workflowId) continue;
      const id = operationIdOf(workflowId);
      let description = await client.workflow.getHandle(workflowId).describe();
      while (description.status.name === 'RUNNING' && Date.now() < deadline) {
        await sleep(500);
        description = await client.workflow.getHandle(workflowId).describe();
      }
      const found = await pool.query<{ status: string | null; state: string | null; lock_used_by: string | null; network: string | null }>(
        `select (select network from crypto_withdrawal where id = $1) as network,
                (select status from crypto_withdrawal where id = $1
                 union all select status from sepa_transfer where id = $1
                 union all select status from exchange where id = $1) as status,
                (select state from ledger_transfer where id = $1) as state,
                (select e.id::text from exchange e join accepted_operation a on e.lock_id = (a.request->>'lock_id')::uuid
                  where a.id = $1 and a.kind = 'EXCHANGE') as lock_used_by`,
        [id],
      );
      fates.set(workflowId, {
        workflowStatus: description.status.name,
        status: found.rows[0]?.status ?? undefined,
        transferState: found.rows[0]?.state ?? undefined,
        lockUsedBy: found.rows[0]?.lock_used_by ?? undefined,
        network: found.rows[0]?.network ?? undefined,
      });
    }
    return fates;
  } finally {
    await pool.end();
    await connection.close();
  }
}

/** Polls for the fault worker's marker; once it is there, the worker must be gone (it killed itself). */
async function waitForMarker(marker: string, worker: StackProcess, timeoutMs: number): Promise<FaultMarker | undefined> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (fs.existsSync(marker)) {
      await Promise.race([worker.exited(), sleep(3_000)]);
      // The marker is written just before the SIGKILL: read it once complete.
      for (let attempt = 0; attempt < 10; attempt += 1) {
        try {
          return JSON.parse(fs.readFileSync(marker, 'utf8')) as FaultMarker;
        } catch {
          await sleep(100);
        }
      }
      return undefined;
    }
    if (!worker.running) return undefined;
    await sleep(100);
  }
  return undefined;
}
