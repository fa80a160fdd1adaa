import { randomUUID } from 'node:crypto';
import { evmDepositWatcherContract } from '../../contracts';
import type { EvmDepositScanResult, EvmDepositWatcherInput } from '../../contracts';
import { eventually } from '../support/eventually';
import { recordHistory } from '../support/history-recorder';
import { domainFailure, mockActivities, stepsInHistory, useWorkflowTestEnvironment } from '../support/workflow-environment';

/** The deposit watcher on its own, its batch mocked: batches while behind, a sleep when caught up, continue-as-new, never a failure. */

const env = useWorkflowTestEnvironment();

const batch = (overrides: Partial<EvmDepositScanResult> = {}): EvmDepositScanResult => ({
  network: 'ethereum',
  head: '120',
  lastBlock: '100',
  blocksRead: 20,
  seen: 1,
  credited: 0,
  rewound: 0,
  caughtUp: false,
  pollIntervalMs: 50,
  ...overrides,
});

describe('EVM deposit watcher workflow', () => {
  it('reads batches back to back while behind, sleeps once caught up, retries a node that is down, then continues as new', async () => {
    const activities = mockActivities({ scanEvmDeposits: () => batch() });
    const input: EvmDepositWatcherInput = { network: 'ethereum', batchesPerRun: 3 };
    await env.withWorker(activities, async (run) => {
      const nextRun = run.gate();
      activities.scanEvmDeposits
        // The node is down: the attempt fails and is retried, the workflow goes on.
        .mockRejectedValueOnce(new Error('fetch failed'))
        .mockResolvedValueOnce(batch())
        .mockResolvedValueOnce(batch({ lastBlock: '120', caughtUp: true }))
        .mockResolvedValueOnce(batch({ lastBlock: '120', head: '120', blocksRead: 0, seen: 0, caughtUp: true, rewound: 2 }))
        .mockImplementation(async () => {
          await nextRun.wait();
          return batch();
        });
      // Not the network's fixed id: a stack's watcher could run under it.
      const handle = await run.start(evmDepositWatcherContract.workflowType, {
        workflowId: `evm-deposit-watcher-test-${randomUUID()}`,
        args: [input],
      });
      await eventually(async () => expect(activities.scanEvmDeposits).toHaveBeenCalledTimes(5), { timeoutMs: 30_000 });
      const firstRun = env.client.workflow.getHandle(handle.workflowId, handle.firstExecutionRunId);
      expect((await firstRun.describe()).status.name).toBe('CONTINUED_AS_NEW');
      const steps = await stepsInHistory(firstRun);
      expect(steps.activities).toEqual(['scanEvmDeposits', 'scanEvmDeposits', 'scanEvmDeposits']);
      // Behind: no sleep; caught up: a poll interval's sleep after each of the two.
      expect(steps.timers).toBe(2);
      expect(steps.failedAttempts).toBe(1);
      expect((await handle.describe()).status.name).toBe('RUNNING');
      await recordHistory(firstRun, 'batches-then-continue-as-new');
    });
    expect(activities.scanEvmDeposits.mock.calls.every(([scan]) => scan.network === 'ethereum')).toBe(true);
  });

  it('does not fail when a batch fails for good: it pauses, and the watcher stays running', async () => {
    const activities = mockActivities({ scanEvmDeposits: () => batch({ caughtUp: true }) });
    activities.scanEvmDeposits.mockRejectedValueOnce(domainFailure('unknown-operation'));
    await env.withWorker(activities, async (run) => {
      const handle = await run.start(evmDepositWatcherContract.workflowType, {
        workflowId: `evm-deposit-watcher-test-${randomUUID()}`,
        args: [{ network: 'polygon' } satisfies EvmDepositWatcherInput],
      });
      await eventually(async () => expect((await stepsInHistory(handle)).timers).toBe(1));
      expect((await handle.describe()).status.name).toBe('RUNNING');
      expect(activities.scanEvmDeposits).toHaveBeenCalledTimes(1);
    });
  });
});
