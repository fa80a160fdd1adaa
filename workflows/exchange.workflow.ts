import { proxyActivities, upsertSearchAttributes } from '@temporalio/workflow';
import type { Activities } from '../activities';
import type { ExchangeInput } from '../activities/exchange.activities';
import { OPERATION_STATUS } from '../core/search-attributes';
import { DATABASE_STEP } from './activity-options';
import { businessCause } from './business-cause';

const { executeExchange } = proxyActivities<Activities>(DATABASE_STEP);

/** One step, one transaction: the exchange is final when this returns. */
export async function exchangeWorkflow(input: ExchangeInput): Promise<{ exchangeId: string }> {
  try {
    const result = await executeExchange(input);
    upsertSearchAttributes([{ key: OPERATION_STATUS, value: 'SUCCESSFUL' }]);
    return result;
  } catch (error) {
    upsertSearchAttributes([{ key: OPERATION_STATUS, value: 'UNSUCCESSFUL' }]);
    throw businessCause(error);
  }
}

