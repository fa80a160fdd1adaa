import {
  ApplicationFailure,
  CancellationScope,
  isCancellation,
  proxyActivities,
  proxyLocalActivities,
  setCurrentDetails,
  setHandler,
  upsertSearchAttributes,
} from '@temporalio/workflow';
import type { Activities } from '../activities';
import type { ExchangeInput, ExchangeResult, OperationProgress } from '../contracts';
import { OPERATION_STAGE, OPERATION_STATUS } from '../core/search-attributes';
import { BOUNDED_DATABASE_STEP, DURABLE_DATABASE_STEP } from './activity-options';
import { failureCause, isRefusal, isUnknownOperation, refusalOf, refusalStage } from './failure-cause';
import { withSummary } from './activity-proxies';
import { progressDetails } from './operation-tracker';
import { statusQuery } from '../contracts';

// A local activity: the whole exchange runs in the workflow's first task (see activity-options.ts).
const { executeExchange } = proxyLocalActivities<Activities>(BOUNDED_DATABASE_STEP);
const { abandonExchange } = proxyActivities<Activities>(DURABLE_DATABASE_STEP);

/**
 * One step, one transaction: the exchange is final when this returns. A refusal (expired lock,
 * insufficient funds) is the result, not a failure. A refused exchange, and one whose outcome is
 * unknown, is settled by the same tombstone the API uses: it either committed, or never will.
 */
export async function exchangeWorkflow(input: ExchangeInput): Promise<ExchangeResult> {
  let progress: OperationProgress = { status: 'IN_PROGRESS', stage: 'EXCHANGING' };
  setHandler(statusQuery, () => progress);
  setCurrentDetails(progressDetails(progress));
  const report = (next: OperationProgress) => {
    progress = next;
    upsertSearchAttributes([
      { key: OPERATION_STATUS, value: next.status },
      { key: OPERATION_STAGE, value: next.stage },
    ]);
    setCurrentDetails(progressDetails(next));
    return { ...next, exchangeId: input.exchangeId };
  };
  try {
    const pair = `${input.currencyFrom.toUpperCase()} → ${input.currencyTo.toUpperCase()}`;
    await withSummary(executeExchange, `exchange ${input.amount} ${pair} at the locked rate`)(input);
    return report({ status: 'SUCCESSFUL', stage: 'SETTLED' });
  } catch (error) {
    const cause = failureCause(error);
    if (isUnknownOperation(cause)) {
      // Not an exchange the API accepted: nothing moved, and its id may be a real exchange's,
      // which an abandon would report as this one's. Refused, and nothing else.
      const refusal = refusalOf(cause);
      return report({ status: 'UNSUCCESSFUL', stage: refusalStage(refusal), failureReason: refusal.message, refusal });
    }
    // Refused or unknown, a tombstone makes sure no attempt still on its way (or a Reset)
    // exchanges later; if one committed first, the exchange happened.
    const abandon = () => withSummary(abandonExchange, 'abandon: committed, or never will')(input.exchangeId);
    if ((await CancellationScope.nonCancellable(abandon)) === 'MOVED') {
      return report({ status: 'SUCCESSFUL', stage: 'SETTLED' });
    }
    if (isRefusal(cause)) {
      const refusal = refusalOf(cause);
      return report({ status: 'UNSUCCESSFUL', stage: refusalStage(refusal), failureReason: refusal.message, refusal });
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
