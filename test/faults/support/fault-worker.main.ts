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
 * The workflow bundle comes from FAULT_WORKFLOW_BUNDLE, built there first when missing (also by
 * `--bundle-only`), so a restart takes seconds instead of a webpack build. No migrations, search
 * attributes or schedules: the production workers the campaign starts first ensure those.
 */
import fs from 'node:fs';
import { Context } from '@temporalio/activity';
import { DefaultLogger, bundleWorkflowCode } from '@temporalio/worker';
import type { Activities } from '../../../activities';
import { loadProcessSettings, mainLogger, onShutdownSignal, requireSetting, workerListeners } from '../../../main/process-support';
import { WORKFLOW_INTERCEPTOR_MODULES, startWorker, workflowsPath } from '../../../worker/worker';
import { installTemporalRuntime } from '../../../worker/temporal-runtime';
import { faultMarkerPath, parseFaultKillAt } from './fault-points';
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

function killer(markerDir: string, activityType: string, moment: FaultMoment): (input: unknown) => void {
  return (input) => {
    const marker = faultMarkerPath(markerDir, activityType, moment);
    const info = Context.current().info;
    const workflowId = info.workflowExecution?.workflowId ?? 'unknown';
    try {
      const content: FaultMarker = {
        workflowId,
        attempt: info.attempt,
        local: info.isLocal,
        pid: process.pid,
        ...(lockIdOf(input) ? { lockId: lockIdOf(input) } : {}),
      };
      fs.writeFileSync(marker, JSON.stringify(content), { flag: 'wx' });
    } catch {
      return; // killed here once already: run normally
    }
    process.stderr.write(`FAULT: SIGKILL at ${activityType}:${moment} (${workflowId})\n`);
    process.kill(process.pid, 'SIGKILL');
  };
}

/** An exchange's input names its rate lock; no other activity's first argument has one. */
function lockIdOf(input: unknown): string | undefined {
  const lockId = input !== null && typeof input === 'object' ? (input as { lockId?: unknown }).lockId : undefined;
  return typeof lockId === 'string' ? lockId : undefined;
}

/** The activities with the fault around the one named; every other activity untouched. */
function withFault(activities: Activities, markerDir: string, activityType: string, moment: FaultMoment): Activities {
  const original = (activities as unknown as Record<string, (...args: unknown[]) => Promise<unknown>>)[activityType];
  if (!original) throw new Error(`FAULT_KILL_AT names ${activityType}, which is not an activity of the worker`);
  const kill = killer(markerDir, activityType, moment);
  const faulty = async (...args: unknown[]): Promise<unknown> => {
    if (moment === 'before') kill(args[0]);
    const result = await original(...args);
    if (moment === 'after') kill(args[0]);
    return result;
  };
  return { ...activities, [activityType]: faulty };
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
  const worker = await startWorker({
    databaseUrl: requireSetting(settings.databaseUrl, 'DATABASE_URL'),
    temporalAddress: requireSetting(settings.temporalAddress, 'TEMPORAL_ADDRESS'),
    namespace: settings.temporalNamespace,
    taskQueue: settings.temporalTaskQueue,
    workflowBundlePath: bundlePath,
    log,
    settings,
    ...(fault ? { wrapActivities: (activities: Activities) => withFault(activities, markerDir, fault.activityType, fault.moment) } : {}),
    http: workerListeners(settings.workerObservability, settings.workerObservability.host).http,
  });
  log.info(`fault worker polling${fault ? `, SIGKILL at ${fault.activityType}:${fault.moment}` : ''}`);
  onShutdownSignal(log, () => worker.stop());
}

main().catch((error: unknown) => {
  process.stderr.write(`${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
  process.exit(1);
});
