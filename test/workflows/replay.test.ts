import { DefaultLogger, Worker, bundleWorkflowCode } from '@temporalio/worker';
import type { WorkflowBundle } from '@temporalio/worker';
import { DeterminismViolationError } from '@temporalio/workflow';
import * as workflows from '../../workflows';
import { WORKFLOW_INTERCEPTOR_MODULES } from '../../worker/worker';
import { commandsOf, historyOf, readRecordedHistories, shapeOf } from '../support/history-recorder';
import type { RecordedHistory } from '../support/history-recorder';
import { quietSdkLogs } from '../support/sdk-logs';
import { testStack } from '../support/stack';

/**
 * Every recorded history (test/histories/, `npm run record-histories`) replays against the
 * current workflow code: a workflow change that runs under way could not follow (an activity
 * call added, removed or reordered without patched()) fails here, not in production after a
 * deploy. Replay needs no server, only a bundle: the run's, built from workflowsPath() with
 * WORKFLOW_INTERCEPTOR_MODULES, as the production worker bundles its workflows.
 */

const recordings = readRecordedHistories();

beforeAll(() => quietSdkLogs());

describe('recorded workflow histories', () => {
  it('are there for every workflow the worker registers', () => {
    expect(recordings.length).toBeGreaterThan(0);
    const registered = Object.entries(workflows)
      .filter(([, value]) => typeof value === 'function')
      .map(([name]) => name)
      .sort();
    expect(registered.length).toBeGreaterThan(0);
    const recorded = new Set(recordings.map(({ recorded }) => recorded.workflowType));
    expect(registered.filter((workflowType) => !recorded.has(workflowType))).toEqual([]);
  });

  it('each name the workflow type, path and commands of the history they hold', () => {
    for (const { file, recorded } of recordings) {
      const started = historyOf(recorded).events[0]?.workflowExecutionStartedEventAttributes;
      expect({ file, workflowType: started?.workflowType?.name }).toEqual({ file, workflowType: recorded.workflowType });
      expect(commandsOf(recorded.history)).toEqual(recorded.commands);
      expect(file).toBe(`${recorded.workflowType}/${recorded.path}.${shapeOf(recorded.commands)}.json`);
    }
  });

  it('replay against the current workflows, every one of them', async () => {
    const replayed = Worker.runReplayHistories(
      { workflowBundle: { codePath: testStack().workflowBundlePath }, replayName: 'recorded-histories' },
      recordings.map(({ recorded }) => ({ workflowId: recorded.workflowId, history: historyOf(recorded) })),
    );
    const failures: string[] = [];
    let count = 0;
    for await (const result of replayed) {
      const { file } = recordings[count]!;
      count += 1;
      if (result.error) failures.push(`${file}: ${result.error.name}: ${result.error.message}`);
    }
    expect(count).toBe(recordings.length);
    expect(failures).toEqual([]);
  });
});

/**
 * That replay catches what it should: a copy of the withdrawal workflow with two activity calls
 * swapped (test/workflows/fixtures/), against the history recorded before the change.
 */
describe('a withdrawal workflow changed after its history was recorded', () => {
  // The fixture is that workflow as of this recording; a newer recording of the same path may follow other code.
  const RECORDING = 'cryptoWithdrawalWorkflow/travel-rule-completed.7e9b126e.json';
  let bundle: WorkflowBundle;

  beforeAll(async () => {
    bundle = await bundleWorkflowCode({
      workflowsPath: require.resolve('./fixtures/reordered-withdrawal.workflows'),
      workflowInterceptorModules: [...WORKFLOW_INTERCEPTOR_MODULES],
      logger: new DefaultLogger('WARN'),
    });
  });

  /** The recording replayed against one of the fixture's workflows (the history renamed to it: replay looks the type up by name). */
  function replayAgainst(workflowType: string): Promise<void> {
    const found = recordings.find(({ file }) => file === RECORDING);
    if (!found) throw new Error(`no recording ${RECORDING} in test/histories`);
    const recorded: RecordedHistory = found.recorded;
    const history = historyOf(recorded);
    history.events[0]!.workflowExecutionStartedEventAttributes!.workflowType!.name = workflowType;
    return Worker.runReplayHistory({ workflowBundle: bundle, replayName: workflowType }, history, recorded.workflowId);
  }

  it('without patched() fails to replay with a DeterminismViolationError naming the swapped activity', async () => {
    const failure = await replayAgainst('unpatchedReorderWorkflow').then(
      () => undefined,
      (error: unknown) => error,
    );
    expect(failure).toBeInstanceOf(DeterminismViolationError);
    // The history scheduled recordTravelRuleCompletion where the changed code schedules setWithdrawalProgress.
    expect((failure as Error).message).toMatch(/recordTravelRuleCompletion.*setWithdrawalProgress/);
  });

  it('behind patched() replays: the old history keeps the order it was recorded with', async () => {
    await expect(replayAgainst('patchedReorderWorkflow')).resolves.toBeUndefined();
  });
});
