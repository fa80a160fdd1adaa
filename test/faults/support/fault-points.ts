import path from 'node:path';
import type { Activities } from '../../../activities';

export type FaultMoment = 'before' | 'after';

/**
 * The activities a crypto withdrawal, a SEPA transfer and an exchange run on their way to
 * SUCCESSFUL (workflows/crypto-withdrawal.workflow.ts, workflows/sepa-transfer.workflow.ts,
 * workflows/exchange.workflow.ts, in that order), and how each runs: `local` ones inside the
 * workflow task (a dead worker is noticed when the workflow task times out, 10 s), regular ones as
 * activity tasks (noticed at the activity's heartbeat or start-to-close timeout:
 * workflows/activity-options.ts). The exchange's abandonExchange is left out: it runs only after a
 * refusal or an exchange whose outcome is unknown, never on the way to SUCCESSFUL.
 */
export const PAYMENT_ACTIVITIES: ReadonlyArray<{
  activityType: keyof Activities;
  operation: 'crypto-withdrawal' | 'sepa-transfer' | 'exchange';
  local: boolean;
}> = [
  { activityType: 'reserveWithdrawal', operation: 'crypto-withdrawal', local: true },
  { activityType: 'checkTravelRule', operation: 'crypto-withdrawal', local: false },
  { activityType: 'markWithdrawalHandOff', operation: 'crypto-withdrawal', local: true },
  { activityType: 'broadcastWithdrawal', operation: 'crypto-withdrawal', local: false },
  { activityType: 'pollWithdrawalConfirmation', operation: 'crypto-withdrawal', local: false },
  { activityType: 'settleWithdrawal', operation: 'crypto-withdrawal', local: true },
  { activityType: 'reserveSepaTransfer', operation: 'sepa-transfer', local: true },
  { activityType: 'markSepaHandOff', operation: 'sepa-transfer', local: false },
  { activityType: 'submitSepaTransfer', operation: 'sepa-transfer', local: false },
  { activityType: 'pollBankAnswer', operation: 'sepa-transfer', local: false },
  { activityType: 'settleSepaTransfer', operation: 'sepa-transfer', local: true },
  { activityType: 'executeExchange', operation: 'exchange', local: true },
];

/** Every activity boundary in turn: each activity before its body, then after it. */
export const FAULT_BOUNDARIES: ReadonlyArray<{ activityType: string; moment: FaultMoment; operation: string; local: boolean }> =
  PAYMENT_ACTIVITIES.flatMap((activity) =>
    (['before', 'after'] as const).map((moment) => ({ ...activity, activityType: String(activity.activityType), moment })),
  );

/** `reserveWithdrawal:before` → the activity and the moment; undefined when no fault is asked for. */
export function parseFaultKillAt(value: string | undefined): { activityType: string; moment: FaultMoment } | undefined {
  if (!value) return undefined;
  const match = /^([A-Za-z]+):(before|after)$/.exec(value);
  if (!match) throw new Error(`FAULT_KILL_AT must be <activityType>:<before|after>, got ${JSON.stringify(value)}`);
  return { activityType: match[1]!, moment: match[2] as FaultMoment };
}

/** The file a fault worker creates (exclusively) just before it kills itself at that boundary. */
export function faultMarkerPath(markerDir: string, activityType: string, moment: FaultMoment): string {
  return path.join(markerDir, `${activityType}-${moment}.killed`);
}

/** What the marker holds: the workflow and attempt the kill hit. */
export interface FaultMarker {
  workflowId: string;
  attempt: number;
  local: boolean;
  pid: number;
  /** An exchange's rate lock (its input's lockId): a retry of the caller's key sends the same one. */
  lockId?: string;
}
