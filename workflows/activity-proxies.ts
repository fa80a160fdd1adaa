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
 * as local activities, and why: activity-options.ts, and README's "Workflow steps".
 */
export const reserving = proxyLocalActivities<Activities>(BOUNDED_DATABASE_STEP);
export const durable = proxyActivities<Activities>(DURABLE_DATABASE_STEP);
export const durableLocal = proxyLocalActivities<Activities>(DURABLE_STEP_LOCAL_ATTEMPTS);
export const external = proxyActivities<Activities>(EXTERNAL_CALL);
export const answering = proxyActivities<Activities>(AWAIT_ANSWER);
export const patient = proxyActivities<Activities>(PATIENT_AWAIT_ANSWER);
