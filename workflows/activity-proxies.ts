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

/** One proxy per kind of step; which run as local activities, and why: activity-options.ts. */
export const reserving = proxyLocalActivities<Activities>(BOUNDED_DATABASE_STEP);
export const durable = proxyActivities<Activities>(DURABLE_DATABASE_STEP);
export const durableLocal = proxyLocalActivities<Activities>(DURABLE_STEP_LOCAL_ATTEMPTS);
export const external = proxyActivities<Activities>(EXTERNAL_CALL);
export const answering = proxyActivities<Activities>(AWAIT_ANSWER);
export const patient = proxyActivities<Activities>(PATIENT_AWAIT_ANSWER);

/**
 * An activity with a one-line summary for the Temporal UI's timeline. Metadata that replay does not compare, so
 * rewording one is safe; stored in clear, so no personal data.
 */
export function withSummary<Args extends unknown[], Result>(
  activity: { executeWithOptions(options: { summary: string }, args: Args): Promise<Result> },
  summary: string,
): (...args: Args) => Promise<Result> {
  return (...args) => activity.executeWithOptions({ summary }, args);
}
