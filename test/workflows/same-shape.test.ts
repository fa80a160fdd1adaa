import { randomUUID } from 'node:crypto';
import { Context } from '@temporalio/activity';
import type { Info } from '@temporalio/activity';
import { WithStartWorkflowOperation } from '@temporalio/client';
import type { WorkflowHandle } from '@temporalio/client';
import { temporal } from '@temporalio/proto';
import { DefaultLogger, NativeConnection, Worker, bundleWorkflowCode } from '@temporalio/worker';
import type { WorkflowBundle } from '@temporalio/worker';
import { createEmptyActivities } from '../../bench/ceiling/empty.activities';
import { SAME_SHAPE_WORKFLOWS } from '../../bench/ceiling/same-shape.workflow';
import type { ShapeName } from '../../bench/ceiling/same-shape.workflow';
import { cryptoWithdrawalContract, exchangeContract, fundsReservedUpdate, sepaTransferContract } from '../../contracts';
import type { CryptoWithdrawalInput, ExchangeInput, SepaTransferInput } from '../../contracts';
import { temporalDataConverter } from '../../core/temporal-connection';
import { commandsOf } from '../../dev/workflow-commands';
import { quietSdkLogs } from '../support/sdk-logs';
import { testStack } from '../support/stack';
import { testTemporalAccess } from '../support/temporal-access';
import { mockActivities, useWorkflowTestEnvironment } from '../support/workflow-environment';

/**
 * The bench's same-shape ceilings (bench/ceiling/same-shape.workflow.ts) against the workflows
 * they stand for: each money movement's settled path, its activities mocked, and its empty
 * workflow run on the same server must make the same commands in the same order (activities by
 * type, local ones by their markers, search-attribute upserts) and run every activity, local or
 * regular, with the same timeouts and retry policy. A change to a money movement's steps fails
 * here until its shape follows; `npm run bench` checks the commands again on every run.
 */

const env = useWorkflowTestEnvironment();

/** One activity execution as its worker saw it: what the ceiling must reproduce. */
type Execution = Pick<Info, 'activityType' | 'isLocal' | 'startToCloseTimeoutMs' | 'scheduleToCloseTimeoutMs' | 'heartbeatTimeoutMs'> & {
  retryPolicy: unknown;
};

/** The same activities, each recording its execution first. */
function recording<T extends object>(activities: T, executions: Execution[]): T {
  return Object.fromEntries(
    Object.entries(activities).map(([name, activity]) => [
      name,
      (...args: unknown[]) => {
        const { activityType, isLocal, startToCloseTimeoutMs, scheduleToCloseTimeoutMs, heartbeatTimeoutMs, retryPolicy } =
          Context.current().info;
        executions.push({ activityType, isLocal, startToCloseTimeoutMs, scheduleToCloseTimeoutMs, heartbeatTimeoutMs, retryPolicy });
        return (activity as (...parameters: unknown[]) => unknown)(...args);
      },
    ]),
  ) as T;
}

/** The run as dev/workflow-commands.ts reads it. */
async function commandsOfRun(handle: WorkflowHandle): Promise<string[]> {
  return commandsOf(temporal.api.history.v1.History.fromObject(await handle.fetchHistory()).toJSON());
}

interface Run {
  commands: string[];
  executions: Execution[];
}

/** Starts a workflow as the API does: the exchange with execute, an outgoing payment with Update-With-Start; awaits its end. */
async function runToTheEnd(taskQueue: string, workflowType: string, workflowId: string, args: unknown[], early: boolean) {
  if (!early) {
    const handle = await env.client.workflow.start(workflowType, { taskQueue, workflowId, args });
    await handle.result();
    return handle;
  }
  const operation = new WithStartWorkflowOperation(workflowType, { taskQueue, workflowId, args, workflowIdConflictPolicy: 'FAIL' });
  expect(await env.client.workflow.executeUpdateWithStart(fundsReservedUpdate, { startWorkflowOperation: operation })).toBeDefined();
  const handle = await operation.workflowHandle();
  await handle.result();
  return handle;
}

const REAL: Record<ShapeName, { activities: () => object; start: () => { workflowId: string; args: unknown[] }; early: boolean }> = {
  exchange: {
    activities: () => mockActivities({ executeExchange: (exchangeId: string) => ({ exchangeId }) }),
    start: () => {
      const input: ExchangeInput = { exchangeId: randomUUID(), currencyFrom: 'eur', currencyTo: 'btc' };
      return { workflowId: exchangeContract.workflowId(input.exchangeId), args: [input] };
    },
    early: false,
  },
  cryptoWithdrawal: {
    activities: () =>
      mockActivities({
        reserveWithdrawal: () => ({ status: 'IN_PROGRESS', stage: 'RESERVED', amount: '0.5', fee: '0.0005' }),
        checkTravelRule: () => ({ deniedReason: null, requiresCompletion: false, deadlineMs: 60_000, handedOff: false }),
        markWithdrawalHandOff: () => 'MARKED',
        broadcastWithdrawal: () => ({ transactionHash: '0xfeed', broadcastAt: '2026-03-01T10:00:00.000Z' }),
        pollWithdrawalConfirmation: () => 'CONFIRMED',
        settleWithdrawal: () => undefined,
      }),
    start: () => {
      const input: CryptoWithdrawalInput = { withdrawalId: randomUUID(), currency: 'eth', network: 'ethereum' };
      return { workflowId: cryptoWithdrawalContract.workflowId(input.withdrawalId), args: [input] };
    },
    early: true,
  },
  sepaTransfer: {
    activities: () =>
      mockActivities({
        reserveSepaTransfer: () => ({ status: 'IN_PROGRESS', stage: 'RESERVED', amount: '250.50', fee: '0' }),
        markSepaHandOff: () => 'MARKED',
        submitSepaTransfer: () => ({ bankReference: 'BANK-REF-1' }),
        pollBankAnswer: () => ({ state: 'SETTLED' }),
        settleSepaTransfer: () => undefined,
      }),
    start: () => {
      const input: SepaTransferInput = { transferId: randomUUID() };
      return { workflowId: sepaTransferContract.workflowId(input.transferId), args: [input] };
    },
    early: true,
  },
};

describe('same-shape ceilings of the bench', () => {
  let connection: NativeConnection;
  let shapes: WorkflowBundle;

  beforeAll(async () => {
    quietSdkLogs();
    connection = await NativeConnection.connect({ address: testStack().temporalAddress });
    shapes = await bundleWorkflowCode({
      workflowsPath: require.resolve('../../bench/ceiling/empty.workflow'),
      logger: new DefaultLogger('WARN'),
    });
  }, 120_000);

  afterAll(async () => {
    await connection?.close();
  });

  /** The money movement's workflow, settled, as its own tests run it. */
  async function realRun(name: ShapeName): Promise<Run> {
    const executions: Execution[] = [];
    const real = REAL[name];
    const commands = await env.withWorker(recording(real.activities(), executions), async (run) => {
      const { workflowId, args } = real.start();
      return commandsOfRun(await runToTheEnd(run.taskQueue, SAME_SHAPE_WORKFLOWS[name].project, workflowId, args, real.early));
    });
    return { commands, executions };
  }

  /** Its same-shape ceiling, on a worker like the bench's (the empty activities), with the run's payload encryption. */
  async function ceilingRun(name: ShapeName): Promise<Run> {
    const executions: Execution[] = [];
    const taskQueue = `same-shape-${randomUUID()}`;
    const worker = await Worker.create({
      connection,
      namespace: testStack().namespace,
      taskQueue,
      workflowBundle: shapes,
      activities: recording(createEmptyActivities(), executions),
      dataConverter: temporalDataConverter(testTemporalAccess(), { refused: 'mark' }),
    });
    const commands = await worker.runUntil(async () =>
      commandsOfRun(await runToTheEnd(taskQueue, SAME_SHAPE_WORKFLOWS[name].ceiling, `same-shape-${randomUUID()}`, [], REAL[name].early)),
    );
    return { commands, executions };
  }

  it.each(Object.keys(SAME_SHAPE_WORKFLOWS) as ShapeName[])(
    '%s: the empty workflow makes the settled path’s commands and runs its activities with the same options',
    async (name) => {
      const real = await realRun(name);
      const ceiling = await ceilingRun(name);
      // A settled path has run: its first and last commands.
      expect(real.commands[0]).toMatch(/^MARKER_RECORDED core_local_activity /);
      expect(real.commands.at(-1)).toBe('WORKFLOW_EXECUTION_COMPLETED');
      expect(ceiling.commands).toEqual(real.commands);
      expect(real.executions.length).toBeGreaterThan(0);
      expect(ceiling.executions).toEqual(real.executions);
    },
  );
});
