import { proxyActivities, proxyLocalActivities } from '@temporalio/workflow';
import { BOUNDED_DATABASE_STEP, DURABLE_DATABASE_STEP } from '../../workflows/activity-options';
import type { EmptyActivities } from './empty.activities';

/**
 * The workflow ceiling: the least a workflow with one step costs on the same Temporal server.
 * The step does nothing; the local one has the options of the project's reservation and exchange
 * steps, the regular one those of its durable steps (an empty step never retries, so only the
 * kind of activity matters).
 */
const local = proxyLocalActivities<EmptyActivities>(BOUNDED_DATABASE_STEP);
const regular = proxyActivities<EmptyActivities>(DURABLE_DATABASE_STEP);

/** One local activity: the ceiling for the exchange and the withdrawal's early return. */
export async function emptyLocalActivityWorkflow(): Promise<string> {
  return local.nothing();
}

/** One regular activity: what the dev server itself costs per activity task (an informative line). */
export async function emptyActivityWorkflow(): Promise<string> {
  return regular.nothing();
}

export { sameShapeCryptoWithdrawalWorkflow, sameShapeExchangeWorkflow, sameShapeSepaTransferWorkflow } from './same-shape.workflow';
