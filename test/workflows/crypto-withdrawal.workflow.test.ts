import { randomUUID } from 'node:crypto';
import { WorkflowFailedError, WorkflowUpdateFailedError } from '@temporalio/client';
import type { WorkflowHandle } from '@temporalio/client';
import { ApplicationFailure, CancelledFailure } from '@temporalio/common';
import { createCryptoWithdrawalActivities } from '../../activities/crypto-withdrawal.activities';
import type { ActivityDependencies } from '../../activities/dependencies';
import type { ChainAdapter, ConfirmationState } from '../../activities/adapters/chain/chain-adapter';
import { completeTravelRuleUpdate, cryptoWithdrawalContract, statusQuery } from '../../contracts';
import type { CryptoWithdrawalInput, OperationProgress, TravelRuleCompletion } from '../../contracts';
import { DomainError } from '../../core/errors';
import { eventually } from '../support/eventually';
import { recordHistory } from '../support/history-recorder';
import { domainFailure, callOrder, mockActivities, stepsInHistory, useWorkflowTestEnvironment } from '../support/workflow-environment';
import type { WorkflowRun } from '../support/workflow-environment';

/**
 * The crypto-withdrawal workflow on its own: every branch of its lifecycle, with mocked
 * activities (the database, the ledger and the chain are the integration and e2e tiers' business).
 */

const env = useWorkflowTestEnvironment();

const RESERVATION_ABANDONED = 'the reservation could not be confirmed';
const CANCELLED_BEFORE_HAND_OFF = 'cancelled by an operator before the money was handed off';
const BROADCAST = { transactionHash: '0xfeed', broadcastAt: '2026-03-01T10:00:00.000Z' };

function withdrawalInput(): CryptoWithdrawalInput {
  return { withdrawalId: randomUUID(), currency: 'eth', network: 'ethereum' };
}

/** Every activity the workflow calls, answering as on the happy path without travel-rule data. */
function withdrawalActivities() {
  return mockActivities({
    reserveWithdrawal: () => ({ status: 'IN_PROGRESS', stage: 'RESERVED', amount: '0.5', fee: '0.0005' }),
    abandonWithdrawal: () => 'NOTHING_MOVED',
    checkTravelRule: () => ({ deniedReason: null, requiresCompletion: false, deadlineMs: 60_000, handedOff: false }),
    setWithdrawalProgress: () => undefined,
    recordTravelRuleCompletion: () => undefined,
    markWithdrawalHandOff: () => 'MARKED',
    releaseWithdrawal: () => 'RELEASED',
    broadcastWithdrawal: () => BROADCAST,
    pollWithdrawalConfirmation: () => 'CONFIRMED',
    settleWithdrawal: () => undefined,
    rejectWithdrawal: () => undefined,
    recordWithdrawalCancellation: () => undefined,
  });
}
type WithdrawalActivities = ReturnType<typeof withdrawalActivities>;

/** The steps that move money, in the order they were called. */
function moneySteps(activities: WithdrawalActivities): string[] {
  const steps = [
    'abandonWithdrawal',
    'releaseWithdrawal',
    'markWithdrawalHandOff',
    'broadcastWithdrawal',
    'settleWithdrawal',
    'rejectWithdrawal',
    'recordWithdrawalCancellation',
  ] as const;
  return callOrder(activities, steps);
}

async function startWithdrawal(run: WorkflowRun, input: CryptoWithdrawalInput) {
  return run.startReserving(cryptoWithdrawalContract.workflowType, {
    workflowId: cryptoWithdrawalContract.workflowId(input.withdrawalId),
    args: [input],
  });
}

async function statusOf(handle: WorkflowHandle): Promise<string> {
  return (await handle.describe()).status.name;
}

async function failureOf(handle: WorkflowHandle): Promise<unknown> {
  const error = await handle.result().then(
    () => undefined,
    (thrown: unknown) => thrown,
  );
  expect(error).toBeInstanceOf(WorkflowFailedError);
  return (error as WorkflowFailedError).cause;
}

async function awaitingTravelRule(handle: WorkflowHandle): Promise<void> {
  await eventually(async () =>
    expect(await handle.query(statusQuery)).toMatchObject({ status: 'IN_PROGRESS_TR_DATA', stage: 'AWAITING_TRAVEL_RULE_DATA' }),
  );
}

const completion: TravelRuleCompletion = {
  completedBy: 'compliance@example.com',
  operatorActionId: '0b7f4a2e-5d53-4c8e-9a51-3f3c8a1d2e10',
  beneficiary: {
    beneficiaryPersons: [
      {
        naturalPerson: {
          name: { nameIdentifier: [{ primaryIdentifier: 'Kowalski', secondaryIdentifier: 'Jan', nameIdentifierType: 'LEGL' }] },
        },
      },
    ],
  },
};

describe('crypto-withdrawal workflow', () => {
  it('answers the caller once reserved, then checks, hands off, waits for the confirmation and settles', async () => {
    const activities = withdrawalActivities();
    const input = withdrawalInput();
    await env.withWorker(activities, async (run) => {
      const { handle, reserved } = await startWithdrawal(run, input);
      expect(await reserved).toEqual({ id: input.withdrawalId });
      expect(await handle.result()).toEqual({ status: 'SUCCESSFUL', stage: 'SETTLED' });
      expect(await handle.query(statusQuery)).toEqual({ status: 'SUCCESSFUL', stage: 'SETTLED' });
      await recordHistory(handle, 'settled');
    });
    expect(activities.reserveWithdrawal).toHaveBeenCalledWith(input.withdrawalId);
    expect(activities.checkTravelRule).toHaveBeenCalledWith(input.withdrawalId);
    expect(activities.pollWithdrawalConfirmation).toHaveBeenCalledWith(input.withdrawalId, { network: 'ethereum', ...BROADCAST });
    expect(moneySteps(activities)).toEqual(['markWithdrawalHandOff', 'broadcastWithdrawal', 'settleWithdrawal']);
    expect(activities.setWithdrawalProgress).not.toHaveBeenCalled();
  });

  describe('the reservation', () => {
    it('refused (a refusal) abandons it, tells the caller, and completes with the refusal as its result', async () => {
      const activities = withdrawalActivities();
      activities.reserveWithdrawal.mockRejectedValue(domainFailure('insufficient-funds', 'the available balance is too low'));
      const input = withdrawalInput();
      await env.withWorker(activities, async (run) => {
        const { handle, reserved } = await startWithdrawal(run, input);
        const refusedCaller = await reserved.catch((error: unknown) => error);
        expect(refusedCaller).toBeInstanceOf(WorkflowUpdateFailedError);
        expect((refusedCaller as WorkflowUpdateFailedError).cause).toMatchObject({
          type: 'insufficient-funds',
          message: 'the available balance is too low',
        });
        expect(await handle.result()).toEqual({
          status: 'UNSUCCESSFUL',
          stage: 'REFUSED_INSUFFICIENT_FUNDS',
          failureReason: 'the available balance is too low',
          refusal: { kind: 'insufficient-funds', message: 'the available balance is too low' },
        });
        expect(await statusOf(handle)).toBe('COMPLETED');
        await recordHistory(handle, 'refused-insufficient-funds');
      });
      expect(activities.reserveWithdrawal).toHaveBeenCalledTimes(1); // non-retryable
      expect(activities.abandonWithdrawal).toHaveBeenCalledWith(input.withdrawalId, RESERVATION_ABANDONED);
      expect(moneySteps(activities)).toEqual(['abandonWithdrawal']);
      expect(activities.checkTravelRule).not.toHaveBeenCalled();
    });

    it('whose outcome is unknown (not a refusal) abandons it and fails the workflow with operation-abandoned', async () => {
      const activities = withdrawalActivities();
      activities.reserveWithdrawal.mockRejectedValue(
        ApplicationFailure.create({ type: 'connection-lost', message: 'the database went away', nonRetryable: true }),
      );
      const input = withdrawalInput();
      await env.withWorker(activities, async (run) => {
        const { handle, reserved } = await startWithdrawal(run, input);
        const callerError = await reserved.catch((error: unknown) => error);
        expect((callerError as WorkflowUpdateFailedError).cause).toMatchObject({ type: 'operation-abandoned' });
        expect(await failureOf(handle)).toMatchObject({
          type: 'operation-abandoned',
          message: 'the reservation could not be confirmed, so it was abandoned: nothing was moved',
        });
        expect(await statusOf(handle)).toBe('FAILED');
        expect(await handle.query(statusQuery)).toMatchObject({ status: 'UNSUCCESSFUL', stage: 'ABANDONED' });
        await recordHistory(handle, 'abandoned');
      });
      expect(activities.abandonWithdrawal).toHaveBeenCalledWith(input.withdrawalId, RESERVATION_ABANDONED);
      expect(moneySteps(activities)).toEqual(['abandonWithdrawal']);
    });

    it('that failed while an earlier run had handed the money off (abandon answers HANDED_OFF) follows it to its end', async () => {
      const activities = withdrawalActivities();
      activities.reserveWithdrawal.mockRejectedValue(
        ApplicationFailure.create({ type: 'connection-lost', message: 'lost', nonRetryable: true }),
      );
      activities.abandonWithdrawal.mockResolvedValue('HANDED_OFF');
      activities.checkTravelRule.mockResolvedValue({ deniedReason: null, requiresCompletion: false, deadlineMs: 0, handedOff: true });
      const input = withdrawalInput();
      await env.withWorker(activities, async (run) => {
        const { handle, reserved } = await startWithdrawal(run, input);
        expect(await reserved).toEqual({ id: input.withdrawalId });
        expect(await handle.result()).toEqual({ status: 'SUCCESSFUL', stage: 'SETTLED' });
      });
      expect(moneySteps(activities)).toEqual(['abandonWithdrawal', 'markWithdrawalHandOff', 'broadcastWithdrawal', 'settleWithdrawal']);
    });

    it('run again after the withdrawal closed (it answers a final state) ends with that state and sends nothing', async () => {
      const activities = withdrawalActivities();
      activities.reserveWithdrawal.mockResolvedValue({ status: 'SUCCESSFUL', stage: 'SETTLED', amount: '0.5', fee: '0.0005' });
      const input = withdrawalInput();
      await env.withWorker(activities, async (run) => {
        const { handle, reserved } = await startWithdrawal(run, input);
        expect(await reserved).toEqual({ id: input.withdrawalId });
        expect(await handle.result()).toEqual({ status: 'SUCCESSFUL', stage: 'SETTLED' });
      });
      expect(activities.checkTravelRule).not.toHaveBeenCalled();
      expect(moneySteps(activities)).toEqual([]);
    });
  });

  describe('the checks before the hand-off', () => {
    it('a deny-listed destination releases the funds and ends UNSUCCESSFUL with the reason, nothing sent', async () => {
      const activities = withdrawalActivities();
      activities.checkTravelRule.mockResolvedValue({
        deniedReason: 'destination address is on the deny list',
        requiresCompletion: false,
        deadlineMs: 60_000,
        handedOff: false,
      });
      const input = withdrawalInput();
      await env.withWorker(activities, async (run) => {
        const { handle } = await startWithdrawal(run, input);
        expect(await handle.result()).toEqual({
          status: 'UNSUCCESSFUL',
          stage: 'FAILED',
          failureReason: 'destination address is on the deny list',
        });
        expect(await statusOf(handle)).toBe('COMPLETED');
        await recordHistory(handle, 'denied-deny-list');
      });
      expect(activities.releaseWithdrawal).toHaveBeenCalledWith(input.withdrawalId, 'destination address is on the deny list', 'FAILED');
      expect(moneySteps(activities)).toEqual(['releaseWithdrawal']);
    });

    it('a failing check (a refusal) releases the funds with its message', async () => {
      const activities = withdrawalActivities();
      activities.checkTravelRule.mockRejectedValue(domainFailure('invalid-user', 'the user of this withdrawal no longer exists'));
      const input = withdrawalInput();
      await env.withWorker(activities, async (run) => {
        const { handle } = await startWithdrawal(run, input);
        expect(await handle.result()).toEqual({
          status: 'UNSUCCESSFUL',
          stage: 'FAILED',
          failureReason: 'the user of this withdrawal no longer exists',
        });
      });
      expect(moneySteps(activities)).toEqual(['releaseWithdrawal']);
    });

    it('a release that finds the money already handed off (a Reset re-ran the checks) releases nothing and goes on to the hand-off', async () => {
      const activities = withdrawalActivities();
      activities.checkTravelRule.mockResolvedValue({
        deniedReason: 'destination address is on the deny list',
        requiresCompletion: false,
        deadlineMs: 60_000,
        handedOff: false,
      });
      activities.releaseWithdrawal.mockResolvedValue('HANDED_OFF');
      await env.withWorker(activities, async (run) => {
        const { handle } = await startWithdrawal(run, withdrawalInput());
        expect(await handle.result()).toEqual({ status: 'SUCCESSFUL', stage: 'SETTLED' });
      });
      expect(moneySteps(activities)).toEqual(['releaseWithdrawal', 'broadcastWithdrawal', 'settleWithdrawal']);
    });

    it('checks that find the withdrawal handed off (a re-run after a Reset) decide nothing again and follow the hand-off', async () => {
      const activities = withdrawalActivities();
      activities.checkTravelRule.mockResolvedValue({ deniedReason: null, requiresCompletion: false, deadlineMs: 0, handedOff: true });
      await env.withWorker(activities, async (run) => {
        const { handle } = await startWithdrawal(run, withdrawalInput());
        expect(await handle.result()).toEqual({ status: 'SUCCESSFUL', stage: 'SETTLED' });
      });
      expect(moneySteps(activities)).toEqual(['markWithdrawalHandOff', 'broadcastWithdrawal', 'settleWithdrawal']);
    });

    it('a hand-off that finds the withdrawal closed ends with its state, nothing sent', async () => {
      const activities = withdrawalActivities();
      activities.markWithdrawalHandOff.mockResolvedValue({ closed: { status: 'UNSUCCESSFUL', stage: 'FAILED' } });
      await env.withWorker(activities, async (run) => {
        const { handle } = await startWithdrawal(run, withdrawalInput());
        expect(await handle.result()).toEqual({ status: 'UNSUCCESSFUL', stage: 'FAILED' });
      });
      expect(moneySteps(activities)).toEqual(['markWithdrawalHandOff']);
    });

    it('a broadcast that finds the withdrawal closed ends with its state and waits for no confirmation', async () => {
      const activities = withdrawalActivities();
      activities.broadcastWithdrawal.mockResolvedValue({ closed: { status: 'SUCCESSFUL', stage: 'SETTLED' } });
      await env.withWorker(activities, async (run) => {
        const { handle } = await startWithdrawal(run, withdrawalInput());
        expect(await handle.result()).toEqual({ status: 'SUCCESSFUL', stage: 'SETTLED' });
      });
      expect(activities.pollWithdrawalConfirmation).not.toHaveBeenCalled();
      expect(moneySteps(activities)).toEqual(['markWithdrawalHandOff', 'broadcastWithdrawal']);
    });
  });

  describe('travel-rule data', () => {
    const requiresCompletion = (deadlineMs: number) => ({ deniedReason: null, requiresCompletion: true, deadlineMs, handedOff: false });

    it('not completed before the deadline fails the withdrawal and releases the funds', async () => {
      const activities = withdrawalActivities();
      activities.checkTravelRule.mockResolvedValue(requiresCompletion(1_500));
      const input = withdrawalInput();
      await env.withWorker(activities, async (run) => {
        const { handle, reserved } = await startWithdrawal(run, input);
        await reserved;
        await awaitingTravelRule(handle);
        expect(await handle.result()).toEqual({
          status: 'UNSUCCESSFUL',
          stage: 'FAILED',
          failureReason: 'travel-rule data was not completed before the deadline',
        });
        // Too late: the Update is refused once the withdrawal stopped waiting.
        await expect(handle.executeUpdate(completeTravelRuleUpdate, { args: [completion] })).rejects.toThrow();
        await recordHistory(handle, 'travel-rule-timed-out');
      });
      expect(activities.setWithdrawalProgress).toHaveBeenCalledWith(input.withdrawalId, {
        status: 'IN_PROGRESS_TR_DATA',
        stage: 'AWAITING_TRAVEL_RULE_DATA',
      });
      expect(activities.releaseWithdrawal).toHaveBeenCalledWith(
        input.withdrawalId,
        'travel-rule data was not completed before the deadline',
        'FAILED',
      );
      expect(activities.recordTravelRuleCompletion).not.toHaveBeenCalled();
      expect(moneySteps(activities)).toEqual(['releaseWithdrawal']);
    });

    it('completed by the Update is recorded, answers its caller, clears the withdrawal, which then settles', async () => {
      const activities = withdrawalActivities();
      activities.checkTravelRule.mockResolvedValue(requiresCompletion(60_000));
      const input = withdrawalInput();
      await env.withWorker(activities, async (run) => {
        const { handle } = await startWithdrawal(run, input);
        await awaitingTravelRule(handle);
        expect(await handle.executeUpdate(completeTravelRuleUpdate, { args: [completion] })).toEqual({
          withdrawalId: input.withdrawalId,
          status: 'IN_PROGRESS',
        });
        expect(await handle.result()).toEqual({ status: 'SUCCESSFUL', stage: 'SETTLED' });
        await recordHistory(handle, 'travel-rule-completed');
      });
      expect(activities.recordTravelRuleCompletion).toHaveBeenCalledWith(input.withdrawalId, completion);
      expect(activities.setWithdrawalProgress.mock.calls.map(([, progress]) => progress)).toEqual([
        { status: 'IN_PROGRESS_TR_DATA', stage: 'AWAITING_TRAVEL_RULE_DATA' },
        { status: 'IN_PROGRESS', stage: 'TRAVEL_RULE_CLEARED' },
      ]);
      expect(moneySteps(activities)).toEqual(['markWithdrawalHandOff', 'broadcastWithdrawal', 'settleWithdrawal']);
    });

    it('an invalid completion is refused by the validator, leaves no trace, and the withdrawal keeps waiting', async () => {
      const activities = withdrawalActivities();
      activities.checkTravelRule.mockResolvedValue(requiresCompletion(60_000));
      const input = withdrawalInput();
      await env.withWorker(activities, async (run) => {
        const { handle } = await startWithdrawal(run, input);
        await awaitingTravelRule(handle);
        for (const bad of [{}, { completedBy: 'not an email' }, { completedBy: 'ops@example.com', beneficiary: { country: 'DE' } }, 42]) {
          const refused = await handle
            .executeUpdate(completeTravelRuleUpdate, { args: [bad as TravelRuleCompletion] })
            .catch((error: unknown) => error);
          expect(refused).toBeInstanceOf(WorkflowUpdateFailedError);
          expect((refused as WorkflowUpdateFailedError).cause).toMatchObject({ type: 'invalid-request' });
        }
        const history = await handle.fetchHistory();
        const acceptedUpdates = (history.events ?? []).flatMap(
          (event) => event.workflowExecutionUpdateAcceptedEventAttributes?.acceptedRequest?.input?.name ?? [],
        );
        expect(acceptedUpdates).toEqual(['fundsReserved']);
        expect(await handle.query(statusQuery)).toMatchObject({ status: 'IN_PROGRESS_TR_DATA' });
        expect(activities.recordTravelRuleCompletion).not.toHaveBeenCalled();
        // A valid one afterwards still completes it.
        await handle.executeUpdate(completeTravelRuleUpdate, { args: [completion] });
        expect(await handle.result()).toMatchObject({ status: 'SUCCESSFUL' });
      });
    });

    it('an Update that names no operator action (the Web UI, the bare CLI) is refused by the validator and changes nothing', async () => {
      const activities = withdrawalActivities();
      activities.checkTravelRule.mockResolvedValue(requiresCompletion(60_000));
      const input = withdrawalInput();
      await env.withWorker(activities, async (run) => {
        const { handle } = await startWithdrawal(run, input);
        await awaitingTravelRule(handle);
        const bare: TravelRuleCompletion = { ...completion };
        delete bare.operatorActionId;
        const refused = await handle.executeUpdate(completeTravelRuleUpdate, { args: [bare] }).catch((error: unknown) => error);
        expect((refused as WorkflowUpdateFailedError).cause).toMatchObject({
          type: 'invalid-request',
          message: expect.stringContaining('npm run ops -- travel-rule complete'),
        });
        expect(await handle.query(statusQuery)).toMatchObject({ status: 'IN_PROGRESS_TR_DATA' });
        expect(activities.recordTravelRuleCompletion).not.toHaveBeenCalled();
        await handle.executeUpdate(completeTravelRuleUpdate, { args: [completion] });
        expect(await handle.result()).toMatchObject({ status: 'SUCCESSFUL' });
      });
    });

    it('a completion the database refuses (its audit row is missing or used) answers why, and the withdrawal waits again', async () => {
      const activities = withdrawalActivities();
      activities.checkTravelRule.mockResolvedValue(requiresCompletion(60_000));
      activities.recordTravelRuleCompletion.mockResolvedValueOnce({ refused: 'no operator action was recorded: use npm run ops' });
      const input = withdrawalInput();
      await env.withWorker(activities, async (run) => {
        const { handle } = await startWithdrawal(run, input);
        await awaitingTravelRule(handle);
        const refused = await handle.executeUpdate(completeTravelRuleUpdate, { args: [completion] }).catch((error: unknown) => error);
        expect((refused as WorkflowUpdateFailedError).cause).toMatchObject({
          type: 'invalid-request',
          message: 'no operator action was recorded: use npm run ops',
        });
        expect(await handle.query(statusQuery)).toMatchObject({ status: 'IN_PROGRESS_TR_DATA', stage: 'AWAITING_TRAVEL_RULE_DATA' });
        expect(activities.markWithdrawalHandOff).not.toHaveBeenCalled();
        // The next one, recorded, clears it.
        expect(await handle.executeUpdate(completeTravelRuleUpdate, { args: [completion] })).toEqual({
          withdrawalId: input.withdrawalId,
          status: 'IN_PROGRESS',
        });
        expect(await handle.result()).toEqual({ status: 'SUCCESSFUL', stage: 'SETTLED' });
      });
      expect(activities.recordTravelRuleCompletion).toHaveBeenCalledTimes(2);
    });

    it('an Update while the withdrawal is not waiting for data is refused', async () => {
      const activities = withdrawalActivities();
      const input = withdrawalInput();
      await env.withWorker(activities, async (run) => {
        const chain = run.gate();
        activities.pollWithdrawalConfirmation.mockImplementation(async () => {
          await chain.wait();
          return 'CONFIRMED';
        });
        const { handle } = await startWithdrawal(run, input);
        await eventually(async () => expect(activities.pollWithdrawalConfirmation).toHaveBeenCalled());
        const refused = await handle.executeUpdate(completeTravelRuleUpdate, { args: [completion] }).catch((error: unknown) => error);
        expect((refused as WorkflowUpdateFailedError).cause).toMatchObject({
          type: 'invalid-request',
          message: 'the withdrawal is not waiting for travel-rule data',
        });
        chain.open();
        expect(await handle.result()).toMatchObject({ status: 'SUCCESSFUL' });
      });
    });
  });

  describe('after the hand-off', () => {
    it('a definite failure on chain (transaction-failed) rejects the withdrawal, releasing the funds', async () => {
      const activities = withdrawalActivities();
      activities.pollWithdrawalConfirmation.mockRejectedValue(domainFailure('transaction-failed', 'transaction 0xfeed failed on chain'));
      const input = withdrawalInput();
      await env.withWorker(activities, async (run) => {
        const { handle } = await startWithdrawal(run, input);
        expect(await handle.result()).toEqual({
          status: 'UNSUCCESSFUL',
          stage: 'REJECTED',
          failureReason: 'transaction 0xfeed failed on chain',
        });
        await recordHistory(handle, 'rejected-on-chain');
      });
      expect(activities.rejectWithdrawal).toHaveBeenCalledWith(input.withdrawalId, 'transaction 0xfeed failed on chain');
      expect(moneySteps(activities)).toEqual(['markWithdrawalHandOff', 'broadcastWithdrawal', 'rejectWithdrawal']);
    });

    it('an uncertain failure fails the workflow and keeps the money held: no release, no reject, no settle', async () => {
      const activities = withdrawalActivities();
      activities.pollWithdrawalConfirmation.mockRejectedValue(
        ApplicationFailure.create({ type: 'node-unreachable', message: 'the chain node is gone', nonRetryable: true }),
      );
      await env.withWorker(activities, async (run) => {
        const { handle } = await startWithdrawal(run, withdrawalInput());
        expect(await failureOf(handle)).toMatchObject({ type: 'node-unreachable' });
        expect(await statusOf(handle)).toBe('FAILED');
        expect(await handle.query(statusQuery)).toMatchObject({ status: 'IN_PROGRESS', stage: 'BROADCAST' });
      });
      expect(moneySteps(activities)).toEqual(['markWithdrawalHandOff', 'broadcastWithdrawal']);
    });
  });

  describe('an operator cancelling it', () => {
    it('before the hand-off releases the funds (stage CANCELLED) and the workflow ends Canceled', async () => {
      const activities = withdrawalActivities();
      activities.checkTravelRule.mockResolvedValue({ deniedReason: null, requiresCompletion: true, deadlineMs: 60_000, handedOff: false });
      const input = withdrawalInput();
      await env.withWorker(activities, async (run) => {
        const { handle } = await startWithdrawal(run, input);
        await awaitingTravelRule(handle);
        await handle.cancel();
        expect(await failureOf(handle)).toBeInstanceOf(CancelledFailure);
        expect(await statusOf(handle)).toBe('CANCELLED');
        expect(await handle.query(statusQuery)).toEqual({
          status: 'UNSUCCESSFUL',
          stage: 'CANCELLED',
          failureReason: CANCELLED_BEFORE_HAND_OFF,
        });
        await recordHistory(handle, 'cancelled-before-hand-off');
      });
      expect(activities.releaseWithdrawal).toHaveBeenCalledWith(input.withdrawalId, CANCELLED_BEFORE_HAND_OFF, 'CANCELLED');
      expect(moneySteps(activities)).toEqual(['releaseWithdrawal']);
    });

    it('after the hand-off records the request, keeps waiting for the chain, and settles on its confirmation', async () => {
      const activities = withdrawalActivities();
      const input = withdrawalInput();
      await env.withWorker(activities, async (run) => {
        const chain = run.gate();
        activities.pollWithdrawalConfirmation.mockImplementation(async () => {
          await chain.wait();
          return 'CONFIRMED';
        });
        const { handle } = await startWithdrawal(run, input);
        await eventually(async () => expect(activities.pollWithdrawalConfirmation).toHaveBeenCalled());
        await handle.cancel();
        await eventually(async () => expect(activities.recordWithdrawalCancellation).toHaveBeenCalledWith(input.withdrawalId));
        expect(await statusOf(handle)).toBe('RUNNING');
        chain.open();
        expect(await handle.result()).toEqual({ status: 'SUCCESSFUL', stage: 'SETTLED' });
        expect(await statusOf(handle)).toBe('COMPLETED');
        await recordHistory(handle, 'cancelled-after-hand-off');
      });
      expect(moneySteps(activities)).toEqual([
        'markWithdrawalHandOff',
        'broadcastWithdrawal',
        'recordWithdrawalCancellation',
        'settleWithdrawal',
      ]);
    });

    it('whose release finds the hand-off committed first follows the money instead (not Canceled)', async () => {
      const activities = withdrawalActivities();
      activities.checkTravelRule.mockResolvedValue({ deniedReason: null, requiresCompletion: true, deadlineMs: 60_000, handedOff: false });
      activities.releaseWithdrawal.mockResolvedValue('HANDED_OFF');
      await env.withWorker(activities, async (run) => {
        const { handle } = await startWithdrawal(run, withdrawalInput());
        await awaitingTravelRule(handle);
        await handle.cancel();
        const result: OperationProgress = await handle.result();
        expect(result).toEqual({ status: 'SUCCESSFUL', stage: 'SETTLED' });
      });
      // The request is noted alongside the broadcast (both follow the release, in either order).
      const steps = moneySteps(activities);
      expect(steps[0]).toBe('releaseWithdrawal');
      expect(steps.slice(1).sort()).toEqual(['broadcastWithdrawal', 'recordWithdrawalCancellation', 'settleWithdrawal']);
      expect(steps.indexOf('settleWithdrawal')).toBeGreaterThan(steps.indexOf('broadcastWithdrawal'));
    });
  });

  describe('how its steps run', () => {
    it('reserves in a local activity: a DomainError thrown there still ends it as a refusal, the caller told', async () => {
      const activities = withdrawalActivities();
      // Thrown as the real activity throws it: the worker's interceptor makes it a typed, non-retryable failure.
      activities.reserveWithdrawal.mockRejectedValue(new DomainError('insufficient-funds', 'the available balance is too low'));
      const input = withdrawalInput();
      await env.withWorker(activities, async (run) => {
        const { handle, reserved } = await startWithdrawal(run, input);
        const refusedCaller = await reserved.catch((error: unknown) => error);
        expect((refusedCaller as WorkflowUpdateFailedError).cause).toMatchObject({
          type: 'insufficient-funds',
          message: 'the available balance is too low',
        });
        expect(await handle.result()).toEqual({
          status: 'UNSUCCESSFUL',
          stage: 'REFUSED_INSUFFICIENT_FUNDS',
          failureReason: 'the available balance is too low',
          refusal: { kind: 'insufficient-funds', message: 'the available balance is too low' },
        });
        const steps = await stepsInHistory(handle);
        expect(steps.localActivities).toEqual(['reserveWithdrawal']);
        expect(steps.activities).toEqual(['abandonWithdrawal']);
      });
      expect(activities.reserveWithdrawal).toHaveBeenCalledTimes(1);
    });

    it('answers the caller while the step after the reservation still runs', async () => {
      const activities = withdrawalActivities();
      const input = withdrawalInput();
      await env.withWorker(activities, async (run) => {
        const checks = run.gate();
        activities.checkTravelRule.mockImplementation(async () => {
          await checks.wait();
          return { deniedReason: null, requiresCompletion: false, deadlineMs: 60_000, handedOff: false };
        });
        const { handle, reserved } = await startWithdrawal(run, input);
        expect(await reserved).toEqual({ id: input.withdrawalId });
        // The checks have not returned: the workflow still reports the reservation as its latest step.
        expect(await handle.query(statusQuery)).toEqual({ status: 'IN_PROGRESS', stage: 'RESERVED' });
        checks.open();
        expect(await handle.result()).toEqual({ status: 'SUCCESSFUL', stage: 'SETTLED' });
      });
    });

    it('waits for the chain in one activity that polls: pending polls are neither failures nor activity tasks', async () => {
      const activities = withdrawalActivities();
      const answers: ConfirmationState[] = ['PENDING', 'PENDING', 'PENDING', 'CONFIRMED'];
      const confirmationState = jest.fn(async () => answers.shift() ?? 'CONFIRMED');
      const chain: ChainAdapter = { broadcast: () => Promise.reject(new Error('not called here')), confirmationState };
      // The real activity, on a scripted chain (the only dependency it touches).
      const real = createCryptoWithdrawalActivities({ chain } as unknown as ActivityDependencies);
      activities.pollWithdrawalConfirmation.mockImplementation((id, request) => real.pollWithdrawalConfirmation(id, request));
      await env.withWorker(activities, async (run) => {
        const { handle } = await startWithdrawal(run, withdrawalInput());
        expect(await handle.result()).toEqual({ status: 'SUCCESSFUL', stage: 'SETTLED' });
        const steps = await stepsInHistory(handle);
        expect(steps.activities.filter((type) => type === 'pollWithdrawalConfirmation')).toHaveLength(1);
        expect(steps.failedAttempts).toBe(0);
        expect(steps.timers).toBe(0);
      });
      expect(confirmationState).toHaveBeenCalledTimes(4);
      expect(activities.pollWithdrawalConfirmation).toHaveBeenCalledTimes(1);
    });

    it('asks the chain again after a durable wait when a polling window closes without an answer', async () => {
      const activities = withdrawalActivities();
      activities.pollWithdrawalConfirmation.mockResolvedValueOnce('PENDING');
      await env.withWorker(activities, async (run) => {
        const { handle } = await startWithdrawal(run, withdrawalInput());
        expect(await handle.result()).toEqual({ status: 'SUCCESSFUL', stage: 'SETTLED' });
        const steps = await stepsInHistory(handle);
        expect(steps.activities.filter((type) => type === 'pollWithdrawalConfirmation')).toHaveLength(2);
        expect(steps.timers).toBe(1);
        expect(steps.failedAttempts).toBe(0);
        await recordHistory(handle, 'settled-after-a-second-poll');
      });
      expect(moneySteps(activities)).toEqual(['markWithdrawalHandOff', 'broadcastWithdrawal', 'settleWithdrawal']);
    });

    it('marks the hand-off and settles in local activities, with only the checks, broadcast and wait as activity tasks', async () => {
      const activities = withdrawalActivities();
      await env.withWorker(activities, async (run) => {
        const { handle } = await startWithdrawal(run, withdrawalInput());
        expect(await handle.result()).toEqual({ status: 'SUCCESSFUL', stage: 'SETTLED' });
        const steps = await stepsInHistory(handle);
        expect(steps.localActivities).toEqual(['reserveWithdrawal', 'markWithdrawalHandOff', 'settleWithdrawal']);
        expect(steps.activities).toEqual(['checkTravelRule', 'broadcastWithdrawal', 'pollWithdrawalConfirmation']);
      });
    });

    it('settles as a regular activity, retried until it succeeds, once its local attempts ran out on a fault', async () => {
      const activities = withdrawalActivities();
      const fault = ApplicationFailure.create({ type: 'connection-lost', message: 'the database went away' });
      activities.settleWithdrawal
        .mockRejectedValueOnce(fault)
        .mockRejectedValueOnce(fault)
        .mockRejectedValueOnce(fault)
        .mockRejectedValueOnce(fault);
      await env.withWorker(activities, async (run) => {
        const { handle } = await startWithdrawal(run, withdrawalInput());
        expect(await handle.result()).toEqual({ status: 'SUCCESSFUL', stage: 'SETTLED' });
        const steps = await stepsInHistory(handle);
        expect(steps.localActivities).toContain('settleWithdrawal');
        expect(steps.activities).toContain('settleWithdrawal');
        await recordHistory(handle, 'settled-by-a-regular-activity');
      });
      // Three local attempts, then the regular activity: one failed attempt, then success.
      expect(activities.settleWithdrawal).toHaveBeenCalledTimes(5);
    });

    it('a settlement refused as a conflict is not run again as a regular activity: the workflow fails, the money held', async () => {
      const activities = withdrawalActivities();
      activities.settleWithdrawal.mockRejectedValue(domainFailure('operation-conflict', 'the withdrawal was released meanwhile'));
      await env.withWorker(activities, async (run) => {
        const { handle } = await startWithdrawal(run, withdrawalInput());
        expect(await failureOf(handle)).toMatchObject({ type: 'operation-conflict' });
        expect((await stepsInHistory(handle)).activities).not.toContain('settleWithdrawal');
      });
      expect(activities.settleWithdrawal).toHaveBeenCalledTimes(1);
      expect(activities.rejectWithdrawal).not.toHaveBeenCalled();
    });
  });
});
