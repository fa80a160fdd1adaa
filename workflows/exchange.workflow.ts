import { proxyActivities, setHandler, upsertSearchAttributes } from '@temporalio/workflow';
import type { Activities } from '../activities';
import type { ExchangeInput } from '../activities/exchange.activities';
import { OPERATION_STATUS } from '../core/search-attributes';
import { BOUNDED_DATABASE_STEP } from './activity-options';
import { businessCause } from './business-cause';
import { statusQuery } from './definitions';
import type { OperationProgress } from './definitions';

const { executeExchange } = proxyActivities<Activities>(BOUNDED_DATABASE_STEP);

/** One step, one transaction: the exchange is final when this returns. */
export async function exchangeWorkflow(input: ExchangeInput): Promise<{ exchangeId: string }> {
  let progress: OperationProgress = { status: 'IN_PROGRESS', stage: 'EXCHANGING' };
  setHandler(statusQuery, () => progress);
  try {
    const result = await executeExchange(input);
    progress = { status: 'SUCCESSFUL', stage: 'SETTLED' };
    upsertSearchAttributes([{ key: OPERATION_STATUS, value: progress.status }]);
    return result;
  } catch (error) {
    const cause = businessCause(error);
    progress = { status: 'UNSUCCESSFUL', stage: 'REFUSED', failureReason: cause instanceof Error ? cause.message : undefined };
    upsertSearchAttributes([{ key: OPERATION_STATUS, value: progress.status }]);
    throw cause;
  }
}

