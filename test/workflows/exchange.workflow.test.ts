import { randomUUID } from 'node:crypto';
import { WorkflowFailedError } from '@temporalio/client';
import { ApplicationFailure } from '@temporalio/common';
import { exchangeContract, statusQuery } from '../../contracts';
import type { ExchangeInput } from '../../contracts';
import { DomainError } from '../../core/errors';
import { recordHistory } from '../support/history-recorder';
import { domainFailure, mockActivities, stepsInHistory, useWorkflowTestEnvironment } from '../support/workflow-environment';

/** The exchange workflow on its own, with mocked activities: one step, and what settles a failed one. */

const env = useWorkflowTestEnvironment();

function exchangeInput(): ExchangeInput {
  return { exchangeId: randomUUID(), currencyFrom: 'eur', currencyTo: 'btc' };
}

function exchangeActivities() {
  return mockActivities({
    executeExchange: (exchangeId: string) => ({ exchangeId }),
    abandonExchange: () => 'TOMBSTONED',
  });
}

async function runExchange(activities: ReturnType<typeof exchangeActivities>, input: ExchangeInput) {
  return env.withWorker(activities, async (run) => {
    const handle = await run.start(exchangeContract.workflowType, {
      workflowId: exchangeContract.workflowId(input.exchangeId),
      args: [input],
    });
    const outcome: { result?: unknown; error?: unknown } = await handle.result().then(
      (result: unknown) => ({ result }),
      (error: unknown) => ({ error }),
    );
    return {
      ...outcome,
      handle,
      status: (await handle.describe()).status.name,
      progress: await handle.query(statusQuery),
      steps: await stepsInHistory(handle),
    };
  });
}

describe('exchange workflow', () => {
  it('settles in one step and leaves no tombstone', async () => {
    const activities = exchangeActivities();
    const input = exchangeInput();
    const outcome = await runExchange(activities, input);
    expect(outcome).toMatchObject({
      status: 'COMPLETED',
      result: { status: 'SUCCESSFUL', stage: 'SETTLED', exchangeId: input.exchangeId },
    });
    expect(activities.executeExchange).toHaveBeenCalledWith(input.exchangeId);
    expect(activities.abandonExchange).not.toHaveBeenCalled();
    await recordHistory(outcome.handle, 'settled');
  });

  it('runs the exchange as a local activity: the whole workflow is one workflow task, no activity task', async () => {
    const outcome = await runExchange(exchangeActivities(), exchangeInput());
    expect(outcome.steps).toMatchObject({ localActivities: ['executeExchange'], activities: [], workflowTasks: 1 });
  });

  it('refused by a DomainError thrown in the local activity completes with the refusal as its result', async () => {
    const activities = exchangeActivities();
    // Thrown as the real activity throws it: the worker's interceptor makes it a typed, non-retryable failure.
    activities.executeExchange.mockRejectedValue(new DomainError('insufficient-funds', 'the available balance is too low'));
    const input = exchangeInput();
    const outcome = await runExchange(activities, input);
    expect(outcome).toMatchObject({
      status: 'COMPLETED',
      result: {
        status: 'UNSUCCESSFUL',
        stage: 'REFUSED_INSUFFICIENT_FUNDS',
        refusal: { kind: 'insufficient-funds', message: 'the available balance is too low' },
      },
    });
    expect(activities.executeExchange).toHaveBeenCalledTimes(1);
    expect(activities.abandonExchange).toHaveBeenCalledWith(input.exchangeId);
    await recordHistory(outcome.handle, 'refused-insufficient-funds');
  });

  it('refused (an expired lock) leaves a tombstone and completes with the refusal as its result', async () => {
    const activities = exchangeActivities();
    activities.executeExchange.mockRejectedValue(domainFailure('invalid-exchange-lock', 'the lock has expired'));
    const input = exchangeInput();
    const outcome = await runExchange(activities, input);
    expect(outcome).toMatchObject({
      status: 'COMPLETED',
      result: {
        status: 'UNSUCCESSFUL',
        stage: 'REFUSED_INVALID_EXCHANGE_LOCK',
        failureReason: 'the lock has expired',
        refusal: { kind: 'invalid-exchange-lock', message: 'the lock has expired' },
        exchangeId: input.exchangeId,
      },
    });
    expect(activities.executeExchange).toHaveBeenCalledTimes(1);
    expect(activities.abandonExchange).toHaveBeenCalledWith(input.exchangeId);
  });

  it('whose outcome is unknown, but whose tombstone finds it committed (MOVED), is SUCCESSFUL', async () => {
    const activities = exchangeActivities();
    activities.executeExchange.mockRejectedValue(
      ApplicationFailure.create({ type: 'connection-lost', message: 'lost before the answer', nonRetryable: true }),
    );
    activities.abandonExchange.mockResolvedValue('MOVED');
    const outcome = await runExchange(activities, exchangeInput());
    expect(outcome).toMatchObject({ status: 'COMPLETED', result: { status: 'SUCCESSFUL', stage: 'SETTLED' } });
  });

  it('refused, but a late attempt had committed first (MOVED), is SUCCESSFUL: the tombstone decides', async () => {
    const activities = exchangeActivities();
    activities.executeExchange.mockRejectedValue(domainFailure('insufficient-funds'));
    activities.abandonExchange.mockResolvedValue('MOVED');
    const outcome = await runExchange(activities, exchangeInput());
    expect(outcome).toMatchObject({ status: 'COMPLETED', result: { status: 'SUCCESSFUL', stage: 'SETTLED' } });
  });

  it('whose outcome is unknown and is tombstoned fails with operation-abandoned: nothing was moved', async () => {
    const activities = exchangeActivities();
    activities.executeExchange.mockRejectedValue(
      ApplicationFailure.create({ type: 'connection-lost', message: 'lost', nonRetryable: true }),
    );
    const outcome = await runExchange(activities, exchangeInput());
    expect(outcome.status).toBe('FAILED');
    expect(outcome.error).toBeInstanceOf(WorkflowFailedError);
    expect((outcome.error as WorkflowFailedError).cause).toMatchObject({
      type: 'operation-abandoned',
      message: 'the exchange could not be confirmed, so it was abandoned: nothing was moved',
    });
    expect(outcome.progress).toMatchObject({ status: 'UNSUCCESSFUL', stage: 'ABANDONED' });
    expect(activities.abandonExchange).toHaveBeenCalledTimes(1);
    await recordHistory(outcome.handle, 'abandoned');
  });
});
