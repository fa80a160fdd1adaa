import { randomUUID } from 'node:crypto';
import { Client, WithStartWorkflowOperation } from '@temporalio/client';
import { connectClosable } from '../../operations/temporal/closable-connection';
import type { ClosableConnection } from '../../operations/temporal/closable-connection';
import type { WorkflowHandle, WorkflowHandleWithFirstExecutionRunId } from '@temporalio/client';
import { ApplicationFailure, defaultPayloadConverter } from '@temporalio/common';
import { NativeConnection, Worker } from '@temporalio/worker';
import type { Activities } from '../../activities';
import { fundsReservedUpdate } from '../../contracts';
import { temporalDataConverter } from '../../core/temporal-connection';
import { testDataConverter, testTemporalAccess } from './temporal-access';
import { WORKER_INTERCEPTORS } from '../../worker/worker';
import { quietSdkLogs } from './sdk-logs';
import { testStack } from './stack';

/**
 * Workflow tests: a workflow on its own, its activities mocked, run by a real Worker (the run's
 * workflow bundle, the production interceptors) on the run's Temporal dev server, on a task queue
 * of its own per test. The time-skipping test server is not available here, so deadlines are made
 * short through the mocked activities that supply them.
 */

/** A jest mock with an activity's signature. */
export type ActivityMock<K extends keyof Activities> = jest.Mock<ReturnType<Activities[K]>, Parameters<Activities[K]>>;
export type ActivityMocks<K extends keyof Activities> = { [P in K]: ActivityMock<P> };

/** Activity mocks, each answering its implementation until a test says otherwise (mockRejectedValueOnce, …). */
export function mockActivities<K extends keyof Activities>(implementations: {
  [P in K]: (...args: Parameters<Activities[P]>) => Awaited<ReturnType<Activities[P]>>;
}): ActivityMocks<K> {
  const mocks: Partial<Record<K, jest.Mock>> = {};
  for (const name of Object.keys(implementations) as K[]) {
    const implementation = implementations[name] as (...args: unknown[]) => unknown;
    mocks[name] = jest.fn(async (...args: unknown[]) => implementation(...args));
  }
  return mocks as ActivityMocks<K>;
}

/** Which of the named mocked steps were called, in the order they were called (repeats included). */
export function callOrder<K extends keyof Activities>(activities: ActivityMocks<K>, steps: readonly K[]): K[] {
  return steps
    .flatMap((step) => activities[step].mock.invocationCallOrder.map((order) => ({ step, order })))
    .sort((a, b) => a.order - b.order)
    .map(({ step }) => step);
}

/** A failure as an activity reports a domain error: non-retryable, its type the error kind. */
export function domainFailure(type: string, message = type): ApplicationFailure {
  return ApplicationFailure.create({ type, message, nonRetryable: true });
}

/** What a workflow's history records of its steps: the cost of a run, in Temporal's terms. */
export interface HistorySteps {
  /** Regular activities by type, once per scheduling (retries of one scheduling are not repeated). */
  activities: string[];
  /** Local activities by type, once per marker (their result, recorded in a workflow task). */
  localActivities: string[];
  /** Attempts of regular activities beyond the first, plus failures recorded: 0 when nothing failed. */
  failedAttempts: number;
  timers: number;
  workflowTasks: number;
  events: number;
}

/** Reads a workflow's history as the steps it took (see HistorySteps). */
export async function stepsInHistory(handle: WorkflowHandle): Promise<HistorySteps> {
  const events = (await handle.fetchHistory()).events ?? [];
  const steps: HistorySteps = {
    activities: [],
    localActivities: [],
    failedAttempts: 0,
    timers: 0,
    workflowTasks: 0,
    events: events.length,
  };
  for (const event of events) {
    const scheduled = event.activityTaskScheduledEventAttributes?.activityType?.name;
    if (scheduled) steps.activities.push(scheduled);
    const attempt = event.activityTaskStartedEventAttributes?.attempt;
    if (attempt) steps.failedAttempts += attempt - 1;
    if (event.activityTaskFailedEventAttributes || event.activityTaskTimedOutEventAttributes) steps.failedAttempts += 1;
    if (event.timerStartedEventAttributes) steps.timers += 1;
    if (event.workflowTaskCompletedEventAttributes) steps.workflowTasks += 1;
    const marker = event.markerRecordedEventAttributes;
    if (marker?.markerName === 'core_local_activity') {
      const data = defaultPayloadConverter.fromPayload<{ activity_type?: string }>(marker.details!.data!.payloads![0]!);
      steps.localActivities.push(data.activity_type ?? 'unknown');
    }
  }
  return steps;
}

/** A step that waits (an unconfirmed transaction, a bank that has not answered) until the test opens it. */
export interface Gate {
  wait(): Promise<void>;
  open(): void;
}

export interface WorkflowRun {
  taskQueue: string;
  /**
   * Starts a workflow on this run's task queue; it is terminated after the test if still running.
   * The handle follows the chain of runs (continue-as-new); its first run is firstExecutionRunId.
   */
  start(workflowType: string, options: { workflowId: string; args: unknown[] }): Promise<WorkflowHandleWithFirstExecutionRunId>;
  /**
   * Starts it as the API does (Update-With-Start of `fundsReserved`): `reserved` is the caller's
   * answer, the id once the funds are held or the refusal.
   */
  startReserving(
    workflowType: string,
    options: { workflowId: string; args: unknown[] },
  ): Promise<{ handle: WorkflowHandle; reserved: Promise<{ id: string }> }>;
  /** A gate that is opened after the test anyway, so no activity stays blocked. */
  gate(): Gate;
}

export interface WorkflowTestEnvironment {
  readonly client: Client;
  /**
   * Runs `test` while a real worker with `activities` polls a task queue of its own; afterwards,
   * passed or failed, it terminates the workflows the test left running, opens every gate and
   * stops the worker.
   */
  withWorker<T>(activities: Partial<Activities>, test: (run: WorkflowRun) => Promise<T>): Promise<T>;
}

export function useWorkflowTestEnvironment(): WorkflowTestEnvironment {
  let nativeConnection: NativeConnection | undefined;
  let connection: ClosableConnection | undefined;
  let client: Client | undefined;

  beforeAll(async () => {
    quietSdkLogs();
    nativeConnection = await NativeConnection.connect({ address: testStack().temporalAddress });
    connection = await connectClosable({ address: testStack().temporalAddress });
    client = new Client({ connection: connection.connection, namespace: testStack().namespace, dataConverter: testDataConverter() });
  });

  afterAll(async () => {
    await connection?.close();
    await nativeConnection?.close();
  });

  const ready = () => {
    if (!client || !nativeConnection)
      throw new Error('useWorkflowTestEnvironment: not connected (used outside a test, or its beforeAll failed)');
    return { client, nativeConnection };
  };

  return {
    get client() {
      return ready().client;
    },
    async withWorker(activities, test) {
      const { client: workflowClient, nativeConnection: workerConnection } = ready();
      const taskQueue = `workflow-test-${randomUUID()}`;
      const started: WorkflowHandle[] = [];
      const gates: Gate[] = [];
      const worker = await Worker.create({
        connection: workerConnection,
        namespace: testStack().namespace,
        taskQueue,
        workflowBundle: { codePath: testStack().workflowBundlePath },
        // Encrypted like the service's worker: plaintext is accepted nowhere.
        dataConverter: temporalDataConverter(testTemporalAccess(), { refused: 'mark' }),
        activities,
        // The production worker's: a mock that throws a DomainError fails as the real activity would.
        interceptors: WORKER_INTERCEPTORS,
        // A mock still blocked when the test ends must not hold the worker's shutdown forever.
        shutdownForceTime: '10 seconds',
      });
      const run: WorkflowRun = {
        taskQueue,
        async start(workflowType, options) {
          const handle = await workflowClient.workflow.start(workflowType, {
            taskQueue,
            workflowId: options.workflowId,
            args: options.args,
          });
          started.push(handle);
          return handle;
        },
        async startReserving(workflowType, options) {
          const operation = new WithStartWorkflowOperation(workflowType, {
            taskQueue,
            workflowId: options.workflowId,
            args: options.args,
            workflowIdConflictPolicy: 'FAIL',
          });
          const reserved = workflowClient.workflow.executeUpdateWithStart(fundsReservedUpdate, { startWorkflowOperation: operation });
          reserved.catch(() => undefined); // the test awaits it, or not
          const handle = await operation.workflowHandle();
          started.push(handle);
          return { handle, reserved };
        },
        gate() {
          let open!: () => void;
          const opened = new Promise<void>((resolve) => (open = resolve));
          const gate = { wait: () => opened, open };
          gates.push(gate);
          return gate;
        },
      };
      return worker.runUntil(async () => {
        try {
          return await test(run);
        } finally {
          for (const handle of started) {
            const { status } = await handle.describe().catch(() => ({ status: { name: 'UNKNOWN' } }));
            if (status.name === 'RUNNING') await handle.terminate('workflow test over').catch(() => undefined);
          }
          for (const gate of gates) gate.open();
        }
      });
    },
  };
}
