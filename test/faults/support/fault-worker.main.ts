/**
 * The fault campaign's worker (test only): the worker `npm run worker` runs (worker/worker.ts's
 * startWorker, the same activities, adapters and interceptors, from the same settings), plus one
 * fault. With FAULT_KILL_AT=<activityType>:<before|after> the process SIGKILLs itself the first
 * time that activity runs on it: `before` as the activity is about to run its body, `after` once
 * the body has returned but before the worker reports the result to Temporal. A marker file in
 * FAULT_MARKER_DIR, created first (exclusively), makes it once per campaign: a worker started
 * again with the same setting runs normally; the marker holds the workflow and attempt it hit
 * (and, for an exchange, its rate lock).
 *
 * The fault sits inside the worker's own interceptors (metrics, request id, domain errors), around
 * the activity function itself: startWorker takes no extra interceptor, and its wrapActivities
 * hook is the innermost position, which is where "the body ran, its result was not reported" is.
 *
 * The money-in activities (fault-points.ts, DEPOSIT_BOUNDARIES) are killed only where they have
 * something to lose: `after` a run that credited (or moved a return on), `before` the returns step
 * only while a return is open; runs that do not qualify go by with the kill still armed. Their
 * inner moments (a batch's deposits recorded, a rewind committed, one SEPA credit committed) are
 * hit at the log line the activity writes right after that transaction: the logger handed to the
 * activities watches for it.
 *
 * The workflow bundle comes from FAULT_WORKFLOW_BUNDLE, built there first when missing (also by
 * `--bundle-only`), so a restart takes seconds instead of a webpack build. No migrations, search
 * attributes or schedules: the production workers the campaign starts first ensure those.
 */
import fs from 'node:fs';
import { Context } from '@temporalio/activity';
import { DefaultLogger, bundleWorkflowCode } from '@temporalio/worker';
import pg from 'pg';
import type { WorkerActivities } from '../../../activities';
import type { EvmDepositScanResult, IncomingSepaIngestResult, SepaReturnsResult } from '../../../contracts';
import type { LogFields, Logger } from '../../../core/logger';
import { loadProcessSettings, mainLogger, onShutdownSignal, requireSetting, workerListeners } from '../../../main/process-support';
import { WORKFLOW_INTERCEPTOR_MODULES, startWorker, workflowsPath } from '../../../worker/worker';
import { installTemporalRuntime } from '../../../worker/temporal-runtime';
import { INNER_MOMENTS, faultMarkerPath, parseFaultKillAt } from './fault-points';
import type { FaultMarker, FaultMoment } from './fault-points';

async function ensureBundle(bundlePath: string): Promise<void> {
  if (fs.existsSync(bundlePath)) return;
  const bundle = await bundleWorkflowCode({
    workflowsPath: workflowsPath(),
    workflowInterceptorModules: [...WORKFLOW_INTERCEPTOR_MODULES],
    logger: new DefaultLogger('WARN'),
  });
  const partial = `${bundlePath}.${process.pid}.tmp`;
  fs.writeFileSync(partial, bundle.code);
  fs.renameSync(partial, bundlePath);
}

function killer(markerDir: string, activityType: string, moment: FaultMoment, network?: string): (input: unknown, detail?: string) => void {
  return (input, detail) => {
    const marker = faultMarkerPath(markerDir, activityType, moment, network);
    const info = Context.current().info;
    const workflowId = info.workflowExecution?.workflowId ?? 'unknown';
    try {
      const content: FaultMarker = {
        workflowId,
        attempt: info.attempt,
        local: info.isLocal,
        pid: process.pid,
        ...(detail ? { detail } : {}),
      };
      fs.writeFileSync(marker, JSON.stringify(content), { flag: 'wx' });
    } catch {
      return; // killed here once already: run normally
    }
    process.stderr.write(`FAULT: SIGKILL at ${activityType}:${moment} (${workflowId})\n`);
    process.kill(process.pid, 'SIGKILL');
  };
}

/**
 * The money-in activities' `after`: only a run that did something is worth killing there (its
 * result, for the marker); any other run's result is reported as usual. Every other activity: always.
 */
const AFTER_WORTH_KILLING: Readonly<Record<string, (result: never) => string | undefined>> = {
  scanEvmDeposits: (result: EvmDepositScanResult) =>
    result.credited > 0 ? `batch up to block ${result.lastBlock}: ${result.seen} seen, ${result.credited} credited` : undefined,
  ingestBankNotifications: (result: IncomingSepaIngestResult) =>
    result.credited > 0
      ? `${result.documents} notification(s): ${result.credited} credited, ${result.duplicates} already recorded, ${result.unmatched} unmatched`
      : undefined,
  advanceSepaReturns: (result: SepaReturnsResult) =>
    result.returnsSubmitted + result.returnsSettled > 0
      ? `returns: ${result.returnsSubmitted} submitted, ${result.returnsSettled} settled`
      : undefined,
};

/** The returns step's `before` waits for a run with a return open (status RETURNING): one with none has nothing to lose. */
function beforeWorthKilling(activityType: string, pool: pg.Pool): () => Promise<boolean> {
  if (activityType !== 'advanceSepaReturns') return () => Promise.resolve(true);
  return async () => {
    const open = await pool.query<{ open: boolean }>(
      `select exists (select 1 from incoming_sepa_credit where status = 'RETURNING') as open`,
    );
    return open.rows[0]?.open === true;
  };
}

/** A boundary of one network's withdrawals lets the others' go by: the activity's first argument is the withdrawal's id. */
function onNetwork(network: string | undefined, pool: pg.Pool): (withdrawalId: unknown) => Promise<boolean> {
  if (!network) return () => Promise.resolve(true);
  return async (withdrawalId) => {
    const found = await pool.query<{ network: string }>('select network from crypto_withdrawal where id = $1', [withdrawalId]);
    return found.rows[0]?.network === network;
  };
}

/** The activities with the fault around the one named; every other activity untouched. */
function withFault(
  activities: WorkerActivities,
  markerDir: string,
  fault: { activityType: string; moment: FaultMoment; network?: string },
  pool: pg.Pool,
): WorkerActivities {
  const { activityType, moment } = fault;
  const original = (activities as unknown as Record<string, (...args: unknown[]) => Promise<unknown>>)[activityType];
  if (!original) throw new Error(`FAULT_KILL_AT names ${activityType}, which is not an activity of the worker`);
  if (INNER_MOMENTS[moment]) return activities; // the logger kills (watchingLogger)
  const kill = killer(markerDir, activityType, moment, fault.network);
  const beforeWorth = beforeWorthKilling(activityType, pool);
  const afterWorth = AFTER_WORTH_KILLING[activityType] as ((result: unknown) => string | undefined) | undefined;
  const ours = onNetwork(fault.network, pool);
  const faulty = async (...args: unknown[]): Promise<unknown> => {
    if (!(await ours(args[0]))) return original(...args);
    if (moment === 'before' && (await beforeWorth())) kill(args[0]);
    const result = await original(...args);
    if (moment === 'after') {
      const detail = afterWorth ? afterWorth(result) : '';
      if (detail !== undefined) kill(args[0], detail);
    }
    return result;
  };
  return { ...activities, [activityType]: faulty };
}

/**
 * The logger the worker and its activities write to, watching for the line of an inner moment
 * (INNER_MOMENTS): written by that activity, it kills the process right there, the transaction
 * before it committed and nothing after it done. Every line is logged first.
 */
function watchingLogger(log: Logger, markerDir: string, activityType: string, moment: FaultMoment): Logger {
  const inner = INNER_MOMENTS[moment];
  if (!inner) return log;
  const kill = killer(markerDir, activityType, moment);
  const watch = (message: string) => {
    if (!inner.message.test(message)) return;
    let current: string | undefined;
    try {
      current = Context.current().info.activityType;
    } catch {
      return; // not inside an activity
    }
    if (current === activityType) kill(undefined, message);
  };
  const wrap = (logger: Logger): Logger => {
    const level =
      (write: (message: string, fields?: LogFields) => void) =>
      (message: string, fields?: LogFields): void => {
        write(message, fields);
        watch(message);
      };
    return {
      debug: level((message, fields) => logger.debug(message, fields)),
      info: level((message, fields) => logger.info(message, fields)),
      warn: level((message, fields) => logger.warn(message, fields)),
      error: level((message, fields) => logger.error(message, fields)),
      child: (bindings) => wrap(logger.child(bindings)),
    };
  };
  return wrap(log);
}

async function main(): Promise<void> {
  const bundlePath = requireSetting(process.env.FAULT_WORKFLOW_BUNDLE || undefined, 'FAULT_WORKFLOW_BUNDLE');
  await ensureBundle(bundlePath);
  if (process.argv.includes('--bundle-only')) process.exit(0);
  const settings = loadProcessSettings();
  const log = mainLogger('fault-worker', settings);
  installTemporalRuntime({ log });
  const fault = parseFaultKillAt(process.env.FAULT_KILL_AT);
  const markerDir = fault ? requireSetting(process.env.FAULT_MARKER_DIR || undefined, 'FAULT_MARKER_DIR') : '';
  const databaseUrl = requireSetting(settings.databaseUrl, 'DATABASE_URL');
  // The fault's own look at the database (is a return open?), apart from the worker's pools.
  const pool = new pg.Pool({ connectionString: databaseUrl, max: 1 });
  pool.on('error', () => undefined);
  const worker = await startWorker({
    databaseUrl,
    temporalAddress: requireSetting(settings.temporalAddress, 'TEMPORAL_ADDRESS'),
    namespace: settings.temporalNamespace,
    taskQueue: settings.temporalTaskQueue,
    workflowBundlePath: bundlePath,
    log: fault ? watchingLogger(log, markerDir, fault.activityType, fault.moment) : log,
    settings,
    ...(fault ? { wrapActivities: (activities: WorkerActivities) => withFault(activities, markerDir, fault, pool) } : {}),
    http: workerListeners(settings.workerObservability, settings.workerObservability.host).http,
  });
  log.info(`fault worker polling${fault ? `, SIGKILL at ${process.env.FAULT_KILL_AT}` : ''}`);
  onShutdownSignal(log, async () => {
    await worker.stop();
    await pool.end();
  });
}

main().catch((error: unknown) => {
  process.stderr.write(`${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
  process.exit(1);
});
