import { ApplicationFailure, CancellationScope, isCancellation, proxyActivities, proxyLocalActivities } from '@temporalio/workflow';
import type { Activities } from '../activities';
import type { ExchangeInput, ExchangeResult, OperationProgress } from '../contracts';
import { BOUNDED_DATABASE_STEP, DURABLE_DATABASE_STEP } from './activity-options';
import { failureCause, isRefusal, isUnknownOperation } from './failure-cause';
import { withSummary } from './activity-proxies';
import { OperationTracker } from './operation-tracker';

// A local activity: the whole exchange runs in the workflow's first task (see activity-options.ts).
const { executeExchange } = proxyLocalActivities<Activities>(BOUNDED_DATABASE_STEP);
const { abandonExchange } = proxyActivities<Activities>(DURABLE_DATABASE_STEP);

/**
 * One step, one transaction: final when this returns. A refusal is the result, not a failure; a refused or unknown
 * outcome is settled by the API's tombstone: it either committed, or never will.
 */
export async function exchangeWorkflow(input: ExchangeInput): Promise<ExchangeResult> {
  // No early answer: the caller waits for the exchange's end, which is this workflow's result.
  const tracker = new OperationTracker({ first: { status: 'IN_PROGRESS', stage: 'EXCHANGING' } });
  const report = (next?: OperationProgress): ExchangeResult => {
    if (next) tracker.report(next);
    return { ...tracker.current, exchangeId: input.exchangeId };
  };
  try {
    const pair = `${input.currencyFrom.toUpperCase()} → ${input.currencyTo.toUpperCase()}`;
    await withSummary(executeExchange, `exchange ${pair} at the locked rate`)(input.exchangeId);
    return report({ status: 'SUCCESSFUL', stage: 'SETTLED' });
  } catch (error) {
    const cause = failureCause(error);
    if (isUnknownOperation(cause)) {
      // Not an exchange the API accepted: its id may be a real exchange's, which an abandon would report as this one's.
      tracker.refuse(cause);
      return report();
    }
    // A tombstone stops any attempt still on its way (or a Reset); if one committed first, the exchange happened.
    const abandon = () => withSummary(abandonExchange, 'abandon: committed, or never will')(input.exchangeId);
    if ((await CancellationScope.nonCancellable(abandon)) === 'MOVED') {
      return report({ status: 'SUCCESSFUL', stage: 'SETTLED' });
    }
    if (isRefusal(cause)) {
      tracker.refuse(cause);
      return report();
    }
    const message = 'the exchange could not be confirmed, so it was abandoned: nothing was moved';
    report({ status: 'UNSUCCESSFUL', stage: 'ABANDONED', failureReason: message });
    if (isCancellation(cause)) throw cause;
    throw ApplicationFailure.create({
      type: 'operation-abandoned',
      message,
      nonRetryable: true,
      cause: cause instanceof Error ? cause : undefined,
    });
  }
}
