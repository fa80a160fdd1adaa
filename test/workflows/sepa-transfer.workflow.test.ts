import { randomUUID } from 'node:crypto';
import { WorkflowFailedError } from '@temporalio/client';
import type { WorkflowHandle, WorkflowUpdateFailedError } from '@temporalio/client';
import { ApplicationFailure, CancelledFailure } from '@temporalio/common';
import type { BankAdapter, BankPaymentState } from '../../activities/adapters/bank/bank-adapter';
import type { ActivityDependencies } from '../../activities/dependencies';
import { createSepaTransferActivities } from '../../activities/sepa-transfer.activities';
import { sepaTransferContract, statusQuery } from '../../contracts';
import type { SepaTransferInput } from '../../contracts';
import { eventually } from '../support/eventually';
import { recordHistory } from '../support/history-recorder';
import { domainFailure, callOrder, mockActivities, stepsInHistory, useWorkflowTestEnvironment } from '../support/workflow-environment';
import type { WorkflowRun } from '../support/workflow-environment';

/** The SEPA-transfer workflow on its own, with mocked activities: the same lifecycle as a withdrawal, the bank deciding. */

const env = useWorkflowTestEnvironment();

const CANCELLED_BEFORE_HAND_OFF = 'cancelled by an operator before the money was handed off';

function transferInput(): SepaTransferInput {
  return { transferId: randomUUID() };
}

function sepaActivities() {
  return mockActivities({
    reserveSepaTransfer: () => ({ status: 'IN_PROGRESS', stage: 'RESERVED', amount: '250.50', fee: '0' }),
    abandonSepaTransfer: () => 'NOTHING_MOVED',
    markSepaHandOff: () => 'MARKED',
    releaseSepaTransfer: () => 'RELEASED',
    submitSepaTransfer: () => ({ bankReference: 'BANK-REF-1' }),
    pollBankAnswer: () => ({ state: 'SETTLED' }),
    settleSepaTransfer: () => undefined,
    rejectSepaTransfer: () => undefined,
    recordSepaCancellation: () => undefined,
  });
}
type SepaActivities = ReturnType<typeof sepaActivities>;

function moneySteps(activities: SepaActivities): string[] {
  const steps = [
    'abandonSepaTransfer',
    'releaseSepaTransfer',
    'markSepaHandOff',
    'submitSepaTransfer',
    'settleSepaTransfer',
    'rejectSepaTransfer',
    'recordSepaCancellation',
  ] as const;
  return callOrder(activities, steps);
}

const startTransfer = (run: WorkflowRun, input: SepaTransferInput) =>
  run.startReserving(sepaTransferContract.workflowType, { workflowId: sepaTransferContract.workflowId(input.transferId), args: [input] });

async function failureOf(handle: WorkflowHandle): Promise<unknown> {
  const error = await handle.result().then(
    () => undefined,
    (thrown: unknown) => thrown,
  );
  expect(error).toBeInstanceOf(WorkflowFailedError);
  return (error as WorkflowFailedError).cause;
}

describe('SEPA-transfer workflow', () => {
  it("answers once reserved, submits the payment and settles on the bank's acceptance", async () => {
    const activities = sepaActivities();
    const input = transferInput();
    await env.withWorker(activities, async (run) => {
      const { handle, reserved } = await startTransfer(run, input);
      expect(await reserved).toEqual({ id: input.transferId });
      expect(await handle.result()).toEqual({ status: 'SUCCESSFUL', stage: 'SETTLED' });
      await recordHistory(handle, 'settled');
    });
    expect(activities.reserveSepaTransfer).toHaveBeenCalledWith(input.transferId);
    expect(activities.pollBankAnswer).toHaveBeenCalledWith(input.transferId, 'BANK-REF-1');
    expect(moneySteps(activities)).toEqual(['markSepaHandOff', 'submitSepaTransfer', 'settleSepaTransfer']);
  });

  it("the bank rejecting the payment releases the funds: UNSUCCESSFUL, stage REJECTED, with the bank's reason", async () => {
    const activities = sepaActivities();
    activities.pollBankAnswer.mockResolvedValue({ state: 'REJECTED', reason: 'AC04 closed account number' });
    const input = transferInput();
    await env.withWorker(activities, async (run) => {
      const { handle } = await startTransfer(run, input);
      expect(await handle.result()).toEqual({ status: 'UNSUCCESSFUL', stage: 'REJECTED', failureReason: 'AC04 closed account number' });
      await recordHistory(handle, 'rejected-by-the-bank');
    });
    expect(activities.rejectSepaTransfer).toHaveBeenCalledWith(input.transferId, 'AC04 closed account number');
    expect(moneySteps(activities)).toEqual(['markSepaHandOff', 'submitSepaTransfer', 'rejectSepaTransfer']);
  });

  it('a refused reservation (no active EUR account) is abandoned and completes with the refusal', async () => {
    const activities = sepaActivities();
    activities.reserveSepaTransfer.mockRejectedValue(domainFailure('partner-not-found', 'the partner has no active EUR account'));
    const input = transferInput();
    await env.withWorker(activities, async (run) => {
      const { handle, reserved } = await startTransfer(run, input);
      const callerError = await reserved.catch((error: unknown) => error);
      expect((callerError as WorkflowUpdateFailedError).cause).toMatchObject({ type: 'partner-not-found' });
      expect(await handle.result()).toMatchObject({
        status: 'UNSUCCESSFUL',
        stage: 'REFUSED_PARTNER_NOT_FOUND',
        refusal: { kind: 'partner-not-found' },
      });
      await recordHistory(handle, 'refused-partner-not-found');
    });
    expect(activities.abandonSepaTransfer).toHaveBeenCalledWith(input.transferId, 'the reservation could not be confirmed');
    expect(moneySteps(activities)).toEqual(['abandonSepaTransfer']);
  });

  it('a reservation whose outcome is unknown is abandoned and fails the workflow with operation-abandoned', async () => {
    const activities = sepaActivities();
    activities.reserveSepaTransfer.mockRejectedValue(
      ApplicationFailure.create({ type: 'connection-lost', message: 'lost', nonRetryable: true }),
    );
    await env.withWorker(activities, async (run) => {
      const { handle } = await startTransfer(run, transferInput());
      expect(await failureOf(handle)).toMatchObject({ type: 'operation-abandoned' });
    });
    expect(moneySteps(activities)).toEqual(['abandonSepaTransfer']);
  });

  it('a payment pain.001 cannot carry (the hand-off refuses it) releases the funds before anything is sent', async () => {
    const activities = sepaActivities();
    activities.markSepaHandOff.mockRejectedValue(domainFailure('invalid-request', 'the creditor name does not fit pain.001'));
    const input = transferInput();
    await env.withWorker(activities, async (run) => {
      const { handle } = await startTransfer(run, input);
      expect(await handle.result()).toEqual({
        status: 'UNSUCCESSFUL',
        stage: 'FAILED',
        failureReason: 'the creditor name does not fit pain.001',
      });
    });
    expect(activities.releaseSepaTransfer).toHaveBeenCalledWith(input.transferId, 'the creditor name does not fit pain.001', 'FAILED');
    expect(moneySteps(activities)).toEqual(['markSepaHandOff', 'releaseSepaTransfer']);
  });

  it('a bank that does not know the reference fails the workflow and keeps the money held', async () => {
    const activities = sepaActivities();
    activities.pollBankAnswer.mockRejectedValue(domainFailure('unknown-bank-reference', 'the bank does not know BANK-REF-1'));
    await env.withWorker(activities, async (run) => {
      const { handle } = await startTransfer(run, transferInput());
      expect(await failureOf(handle)).toMatchObject({ type: 'unknown-bank-reference' });
      expect(await handle.query(statusQuery)).toMatchObject({ status: 'IN_PROGRESS', stage: 'SUBMITTED' });
    });
    expect(moneySteps(activities)).toEqual(['markSepaHandOff', 'submitSepaTransfer']);
  });

  it('a re-run after the transfer closed ends with its final state and submits nothing', async () => {
    const activities = sepaActivities();
    activities.reserveSepaTransfer.mockResolvedValue({ status: 'UNSUCCESSFUL', stage: 'REJECTED', amount: '250.50', fee: '0' });
    await env.withWorker(activities, async (run) => {
      const { handle } = await startTransfer(run, transferInput());
      expect(await handle.result()).toEqual({ status: 'UNSUCCESSFUL', stage: 'REJECTED' });
    });
    expect(moneySteps(activities)).toEqual([]);
  });

  it('cancelled while the hand-off is being recorded, releases the funds and ends Canceled', async () => {
    const activities = sepaActivities();
    const input = transferInput();
    await env.withWorker(activities, async (run) => {
      const marking = run.gate();
      activities.markSepaHandOff.mockImplementation(async () => {
        await marking.wait();
        return 'MARKED';
      });
      const { handle } = await startTransfer(run, input);
      await eventually(async () => expect(activities.markSepaHandOff).toHaveBeenCalled());
      await handle.cancel();
      expect(await failureOf(handle)).toBeInstanceOf(CancelledFailure);
      expect((await handle.describe()).status.name).toBe('CANCELLED');
      await recordHistory(handle, 'cancelled-before-hand-off');
    });
    expect(activities.releaseSepaTransfer).toHaveBeenCalledWith(input.transferId, CANCELLED_BEFORE_HAND_OFF, 'CANCELLED');
    expect(activities.submitSepaTransfer).not.toHaveBeenCalled();
  });

  it("cancelled after the submission, records the request and still follows the bank's answer", async () => {
    const activities = sepaActivities();
    const input = transferInput();
    await env.withWorker(activities, async (run) => {
      const bank = run.gate();
      activities.pollBankAnswer.mockImplementation(async () => {
        await bank.wait();
        return { state: 'REJECTED', reason: 'AM04 insufficient funds at the bank' };
      });
      const { handle } = await startTransfer(run, input);
      await eventually(async () => expect(activities.pollBankAnswer).toHaveBeenCalled());
      await handle.cancel();
      await eventually(async () => expect(activities.recordSepaCancellation).toHaveBeenCalledWith(input.transferId));
      bank.open();
      expect(await handle.result()).toEqual({
        status: 'UNSUCCESSFUL',
        stage: 'REJECTED',
        failureReason: 'AM04 insufficient funds at the bank',
      });
      await recordHistory(handle, 'cancelled-after-hand-off');
    });
    expect(moneySteps(activities)).toEqual(['markSepaHandOff', 'submitSepaTransfer', 'recordSepaCancellation', 'rejectSepaTransfer']);
  });

  describe('how its steps run', () => {
    it('answers the caller while the hand-off, the step after the reservation, still runs', async () => {
      const activities = sepaActivities();
      const input = transferInput();
      await env.withWorker(activities, async (run) => {
        const handOff = run.gate();
        activities.markSepaHandOff.mockImplementation(async () => {
          await handOff.wait();
          return 'MARKED';
        });
        const { handle, reserved } = await startTransfer(run, input);
        expect(await reserved).toEqual({ id: input.transferId });
        expect(await handle.query(statusQuery)).toEqual({ status: 'IN_PROGRESS', stage: 'RESERVED' });
        handOff.open();
        expect(await handle.result()).toEqual({ status: 'SUCCESSFUL', stage: 'SETTLED' });
        const steps = await stepsInHistory(handle);
        expect(steps.localActivities).toEqual(['reserveSepaTransfer', 'settleSepaTransfer']);
        expect(steps.activities).toEqual(['markSepaHandOff', 'submitSepaTransfer', 'pollBankAnswer']);
      });
    });

    it("waits for the bank's answer in one activity that polls, and releases on its rejection as before", async () => {
      const activities = sepaActivities();
      const answers: BankPaymentState[] = [
        { state: 'PENDING' },
        { state: 'PENDING' },
        { state: 'REJECTED', reason: 'AC04 closed account' },
      ];
      const paymentState = jest.fn(async (): Promise<BankPaymentState> => answers.shift() ?? { state: 'PENDING' });
      const bank: BankAdapter = {
        submit: () => Promise.reject(new Error('not called here')),
        paymentState,
        fetchNotifications: () => Promise.reject(new Error('not called here')),
      };
      // The real activity, on a scripted bank (the only dependency it touches).
      const real = createSepaTransferActivities({ bank } as unknown as ActivityDependencies);
      activities.pollBankAnswer.mockImplementation((id, bankReference) => real.pollBankAnswer(id, bankReference));
      const input = transferInput();
      await env.withWorker(activities, async (run) => {
        const { handle } = await startTransfer(run, input);
        expect(await handle.result()).toEqual({ status: 'UNSUCCESSFUL', stage: 'REJECTED', failureReason: 'AC04 closed account' });
        const steps = await stepsInHistory(handle);
        expect(steps.activities.filter((type) => type === 'pollBankAnswer')).toHaveLength(1);
        expect(steps.failedAttempts).toBe(0);
      });
      expect(paymentState).toHaveBeenCalledTimes(3);
      expect(activities.rejectSepaTransfer).toHaveBeenCalledWith(input.transferId, 'AC04 closed account');
      expect(moneySteps(activities)).toEqual(['markSepaHandOff', 'submitSepaTransfer', 'rejectSepaTransfer']);
    });
  });
});
