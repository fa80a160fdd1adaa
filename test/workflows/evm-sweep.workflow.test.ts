import { randomUUID } from 'node:crypto';
import { evmSweepContract, evmSweepKey, evmSweeperContract, utxoSweeperContract } from '../../contracts';
import type {
  EvmSweepInput,
  EvmSweepProgress,
  EvmSweepResult,
  EvmSweepRoundResult,
  EvmSweeperInput,
  UtxoSweepRoundResult,
  UtxoSweeperInput,
} from '../../contracts';
import { eventually } from '../support/eventually';
import { recordHistory } from '../support/history-recorder';
import { domainFailure, mockActivities, stepsInHistory, useWorkflowTestEnvironment } from '../support/workflow-environment';

/** The sweeper and the sweep on their own, their activities mocked: rounds and continue-as-new; a claim, steps a poll apart, an end. */

const env = useWorkflowTestEnvironment();

const input: EvmSweepInput = {
  network: 'ethereum',
  address: '0x9858EfFD232B4033E47d90003D41EC34EcaEda94',
  currency: 'usdc',
  pollIntervalMs: 20,
};
const SWEEP_ID = '3f0f4a39-8c4b-4a9e-9d55-0a7c1b1f2e11';
const progress = (status: EvmSweepProgress['status'], stage: string, extra: Partial<EvmSweepProgress> = {}): EvmSweepProgress => ({
  sweepId: SWEEP_ID,
  status,
  stage,
  ...extra,
});

/** Not the fixed ids of a stack's own sweeps: a test workflow may not join them. */
const sweepWorkflowId = () => `${evmSweepContract.workflowId(evmSweepKey(input))}-test-${randomUUID()}`;

describe('EVM sweep workflow', () => {
  it('claims, then advances a poll interval apart (gas top-up, sent) until SWEPT', async () => {
    const activities = mockActivities({
      claimEvmSweep: () => ({ kind: 'claimed' as const, sweepId: SWEEP_ID, resumed: false }),
      advanceEvmSweep: () => progress('SWEPT', 'SWEPT', { transactionHash: `0x${'ab'.repeat(32)}` }),
    });
    activities.advanceEvmSweep
      // The node is down for a moment: the step is retried, the sweep goes on.
      .mockRejectedValueOnce(new Error('fetch failed'))
      .mockResolvedValueOnce(progress('IN_FLIGHT', 'GAS_TOP_UP'))
      .mockResolvedValueOnce(progress('IN_FLIGHT', 'SENT'));
    await env.withWorker(activities, async (run) => {
      const handle = await run.start(evmSweepContract.workflowType, { workflowId: sweepWorkflowId(), args: [input] });
      const result = (await handle.result()) as EvmSweepResult;
      expect(result).toEqual({ outcome: 'SWEPT', progress: progress('SWEPT', 'SWEPT', { transactionHash: `0x${'ab'.repeat(32)}` }) });
      const steps = await stepsInHistory(handle);
      expect(steps.activities).toEqual(['claimEvmSweep', 'advanceEvmSweep', 'advanceEvmSweep', 'advanceEvmSweep']);
      expect(steps.timers).toBe(2);
      expect(steps.failedAttempts).toBe(1);
      await recordHistory(handle, 'swept-after-gas-top-up');
    });
    expect(activities.claimEvmSweep.mock.calls).toEqual([[input]]);
    expect(activities.advanceEvmSweep.mock.calls.every(([step]) => step.sweepId === SWEEP_ID)).toBe(true);
  });

  it('ends FAILED with what the step said, and does nothing when there is nothing to sweep or the address is busy', async () => {
    const activities = mockActivities({
      claimEvmSweep: () => ({ kind: 'claimed' as const, sweepId: SWEEP_ID, resumed: true }),
      advanceEvmSweep: () => progress('FAILED', 'FAILED', { failureReason: 'REVERTED' }),
    });
    activities.claimEvmSweep
      .mockResolvedValueOnce({ kind: 'nothing', reason: 'no credited deposit is left to sweep' })
      .mockResolvedValueOnce({ kind: 'busy', inFlight: SWEEP_ID });
    await env.withWorker(activities, async (run) => {
      const nothing = await run.start(evmSweepContract.workflowType, { workflowId: sweepWorkflowId(), args: [input] });
      expect(await nothing.result()).toEqual({ outcome: 'NOTHING', reason: 'no credited deposit is left to sweep' });
      expect((await stepsInHistory(nothing)).activities).toEqual(['claimEvmSweep']);
      await recordHistory(nothing, 'nothing-to-sweep');
      const busy = await run.start(evmSweepContract.workflowType, { workflowId: sweepWorkflowId(), args: [input] });
      expect(await busy.result()).toMatchObject({ outcome: 'BUSY' });
      const failed = await run.start(evmSweepContract.workflowType, { workflowId: sweepWorkflowId(), args: [input] });
      expect(await failed.result()).toEqual({ outcome: 'FAILED', progress: progress('FAILED', 'FAILED', { failureReason: 'REVERTED' }) });
    });
    expect(activities.advanceEvmSweep).toHaveBeenCalledTimes(1);
  });
});

describe('EVM sweeper workflow', () => {
  const round = (due: number): EvmSweepRoundResult => ({ network: 'ethereum', due, pollIntervalMs: 20 });

  it('starts the due sweeps every poll interval, pauses after a round that failed for good, and continues as new', async () => {
    const activities = mockActivities({ startDueEvmSweeps: () => round(0) });
    activities.startDueEvmSweeps
      .mockResolvedValueOnce(round(2))
      .mockRejectedValueOnce(new Error('connection refused'))
      .mockResolvedValueOnce(round(0));
    await env.withWorker(activities, async (run) => {
      const handle = await run.start(evmSweeperContract.workflowType, {
        workflowId: `evm-sweeper-test-${randomUUID()}`,
        args: [{ network: 'ethereum', roundsPerRun: 2 } satisfies EvmSweeperInput],
      });
      const firstRun = env.client.workflow.getHandle(handle.workflowId, handle.firstExecutionRunId);
      await eventually(async () => expect((await firstRun.describe()).status.name).toBe('CONTINUED_AS_NEW'), { timeoutMs: 30_000 });
      const steps = await stepsInHistory(firstRun);
      expect(steps.activities).toEqual(['startDueEvmSweeps', 'startDueEvmSweeps']);
      expect(steps.timers).toBe(2);
      expect(steps.failedAttempts).toBe(1);
      await recordHistory(firstRun, 'rounds-then-continue-as-new');
    });
    expect(activities.startDueEvmSweeps.mock.calls.every(([each]) => each.network === 'ethereum')).toBe(true);
  });

  it('does not fail when a round fails for good: it waits, and stays running', async () => {
    const activities = mockActivities({ startDueEvmSweeps: () => round(0) });
    activities.startDueEvmSweeps.mockRejectedValueOnce(domainFailure('unknown-operation'));
    await env.withWorker(activities, async (run) => {
      const handle = await run.start(evmSweeperContract.workflowType, {
        workflowId: `evm-sweeper-test-${randomUUID()}`,
        args: [{ network: 'polygon' } satisfies EvmSweeperInput],
      });
      await eventually(async () => expect((await stepsInHistory(handle)).timers).toBe(1));
      expect((await handle.describe()).status.name).toBe('RUNNING');
      expect(activities.startDueEvmSweeps).toHaveBeenCalledTimes(1);
    });
  });
});

describe('UTXO sweeper workflow', () => {
  const round = (stage: UtxoSweepRoundResult['stage']): UtxoSweepRoundResult => ({
    network: 'bitcoin',
    stage,
    deposits: 3,
    pollIntervalMs: 20,
  });

  it("runs the network's sweep step every poll interval, goes on after a round that failed, and continues as new", async () => {
    const activities = mockActivities({ sweepUtxoDeposits: () => round('NOTHING') });
    activities.sweepUtxoDeposits.mockResolvedValueOnce(round('SENT')).mockRejectedValueOnce(new Error('connection refused'));
    await env.withWorker(activities, async (run) => {
      const handle = await run.start(utxoSweeperContract.workflowType, {
        workflowId: `utxo-sweeper-test-${randomUUID()}`,
        args: [{ network: 'bitcoin', roundsPerRun: 2 } satisfies UtxoSweeperInput],
      });
      const firstRun = env.client.workflow.getHandle(handle.workflowId, handle.firstExecutionRunId);
      await eventually(async () => expect((await firstRun.describe()).status.name).toBe('CONTINUED_AS_NEW'), { timeoutMs: 30_000 });
      const steps = await stepsInHistory(firstRun);
      expect(steps.activities).toEqual(['sweepUtxoDeposits', 'sweepUtxoDeposits']);
      expect(steps.failedAttempts).toBe(1);
      await recordHistory(firstRun, 'rounds-then-continue-as-new');
    });
    expect(activities.sweepUtxoDeposits.mock.calls.every(([each]) => each.network === 'bitcoin')).toBe(true);
    expect(utxoSweeperContract.workflowId('bitcoin')).toBe('utxo-sweeper-bitcoin');
  });
});
