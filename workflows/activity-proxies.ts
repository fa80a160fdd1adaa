import { proxyActivities, proxyLocalActivities } from '@temporalio/workflow';
import type { Activities } from '../activities';
import {
  AWAIT_ANSWER,
  BOUNDED_DATABASE_STEP,
  DURABLE_DATABASE_STEP,
  DURABLE_STEP_LOCAL_ATTEMPTS,
  EXTERNAL_CALL,
  PATIENT_AWAIT_ANSWER,
} from './activity-options';

/**
 * The activities as the outgoing payments call them, one proxy per kind of step. Which steps run
 * as local activities, and why: activity-options.ts, and docs/architecture.md, "Workflow steps".
 */
export const reserving = proxyLocalActivities<Activities>(BOUNDED_DATABASE_STEP);
export const durable = proxyActivities<Activities>(DURABLE_DATABASE_STEP);
export const durableLocal = proxyLocalActivities<Activities>(DURABLE_STEP_LOCAL_ATTEMPTS);
export const external = proxyActivities<Activities>(EXTERNAL_CALL);
export const answering = proxyActivities<Activities>(AWAIT_ANSWER);
export const patient = proxyActivities<Activities>(PATIENT_AWAIT_ANSWER);

/**
 * An activity that runs with a one-line summary, which the Temporal UI shows in the workflow's
 * timeline ("broadcast 0.5 ETH on ethereum"). The summary is user metadata on the command, which
 * replay does not compare, so adding or rewording one keeps old histories replaying. No personal
 * data in it: it is stored in clear.
 */
export function withSummary<Args extends unknown[], Result>(
  activity: { executeWithOptions(options: { summary: string }, args: Args): Promise<Result> },
  summary: string,
): (...args: Args) => Promise<Result> {
  return (...args) => activity.executeWithOptions({ summary }, args);
}
