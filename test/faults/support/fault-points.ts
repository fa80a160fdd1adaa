import path from 'node:path';
import type { Activities } from '../../../activities';

/**
 * Where in an activity the fault worker kills itself: `before` its body, `after` it (the body
 * returned, the result not reported), or at one of the moments inside a deposit activity that
 * INNER_MOMENTS names (a database transaction of the body committed, the rest not done).
 */
export type FaultMoment = 'before' | 'after' | 'seen' | 'rewound' | 'credited';

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
  /** It talks to the withdrawal's chain: each of WITHDRAWAL_NETWORKS has its own boundaries (their adapters differ). */
  onChain?: true;
}> = [
  { activityType: 'reserveWithdrawal', operation: 'crypto-withdrawal', local: true },
  { activityType: 'checkTravelRule', operation: 'crypto-withdrawal', local: false },
  { activityType: 'markWithdrawalHandOff', operation: 'crypto-withdrawal', local: true },
  { activityType: 'broadcastWithdrawal', operation: 'crypto-withdrawal', local: false, onChain: true },
  { activityType: 'pollWithdrawalConfirmation', operation: 'crypto-withdrawal', local: false, onChain: true },
  { activityType: 'settleWithdrawal', operation: 'crypto-withdrawal', local: true },
  { activityType: 'reserveSepaTransfer', operation: 'sepa-transfer', local: true },
  { activityType: 'markSepaHandOff', operation: 'sepa-transfer', local: false },
  { activityType: 'submitSepaTransfer', operation: 'sepa-transfer', local: false },
  { activityType: 'pollBankAnswer', operation: 'sepa-transfer', local: false },
  { activityType: 'settleSepaTransfer', operation: 'sepa-transfer', local: true },
  { activityType: 'executeExchange', operation: 'exchange', local: true },
];

/** The networks the campaign's withdrawals are paid on, in the order its callers send them (support/load.ts). */
export const WITHDRAWAL_NETWORKS = ['bitcoin', 'polygon', 'litecoin'] as const;
export type WithdrawalNetwork = (typeof WITHDRAWAL_NETWORKS)[number];

/** Every activity boundary in turn: each activity before its body, then after it; an activity on chain, once per network. */
export const FAULT_BOUNDARIES: ReadonlyArray<{
  activityType: string;
  moment: FaultMoment;
  operation: string;
  local: boolean;
  network?: WithdrawalNetwork;
}> = PAYMENT_ACTIVITIES.flatMap((activity) =>
  (['before', 'after'] as const).flatMap((moment) =>
    (activity.onChain ? WITHDRAWAL_NETWORKS : [undefined]).map((network) => ({
      activityType: String(activity.activityType),
      operation: activity.operation,
      local: activity.local,
      moment,
      ...(network ? { network } : {}),
    })),
  ),
);

/** `activity:moment`, or `activity:moment@network` for a boundary of one network's withdrawals: FAULT_KILL_AT. */
export function faultKillAt(boundary: { activityType: string; moment: FaultMoment; network?: string }): string {
  return `${boundary.activityType}:${boundary.moment}${boundary.network ? `@${boundary.network}` : ''}`;
}

/** Which of the money-in activities a deposit boundary belongs to: the EVM deposit watcher's batch, or the incoming-sepa run's steps. */
export type DepositChain = 'watcher' | 'sepa';

/**
 * The activities money comes in by (workflows/evm-deposit-watcher.workflow.ts: scanEvmDeposits,
 * one batch of blocks that records, rewinds and credits; workflows/incoming-sepa.workflow.ts:
 * ingestBankNotifications, then advanceSepaReturns), each a regular activity, and the boundaries
 * the campaign kills a worker at. A boundary is only worth a kill when the activity has something
 * to do there, so some wait for it (`when`): the fault worker (fault-worker.main.ts) arms the kill
 * and lets runs that do not qualify go by. The inner moments are found by the log line the
 * activity writes right after that transaction commits (INNER_MOMENTS).
 */
export const DEPOSIT_BOUNDARIES: ReadonlyArray<{
  activityType: Extract<keyof Activities, string>;
  moment: FaultMoment;
  chain: DepositChain;
  when: string;
}> = [
  { activityType: 'scanEvmDeposits', moment: 'before', chain: 'watcher', when: 'a batch about to run' },
  {
    activityType: 'scanEvmDeposits',
    moment: 'seen',
    chain: 'watcher',
    when: 'a batch that recorded new deposits (with its cursor), before it credits',
  },
  {
    activityType: 'scanEvmDeposits',
    moment: 'after',
    chain: 'watcher',
    when: 'a batch that credited deposits, before its completion is reported',
  },
  {
    activityType: 'scanEvmDeposits',
    moment: 'rewound',
    chain: 'watcher',
    when: 'a batch whose rewind after a reorganisation committed, before it reads on',
  },
  { activityType: 'ingestBankNotifications', moment: 'before', chain: 'sepa', when: 'an ingest about to run' },
  {
    activityType: 'ingestBankNotifications',
    moment: 'credited',
    chain: 'sepa',
    when: 'an ingest that credited an entry, before it moves the notification cursor',
  },
  {
    activityType: 'ingestBankNotifications',
    moment: 'after',
    chain: 'sepa',
    when: 'an ingest that credited entries, before its completion is reported',
  },
  { activityType: 'advanceSepaReturns', moment: 'before', chain: 'sepa', when: 'a run about to move returns on, with a return open' },
  {
    activityType: 'advanceSepaReturns',
    moment: 'after',
    chain: 'sepa',
    when: 'a run that submitted or settled a return, before its completion is reported',
  },
];

/**
 * The inner moments: the log line each activity writes right after the transaction commits, which
 * the fault worker's logger watches for (a changed message leaves the boundary unreached: the
 * campaign fails loudly, it does not pass quietly).
 */
export const INNER_MOMENTS: Readonly<Partial<Record<FaultMoment, { activityType: string; message: RegExp }>>> = {
  // activities/evm-deposit.activities.ts, after the batch's transaction (deposits, blocks, cursor).
  seen: { activityType: 'scanEvmDeposits', message: /^\d+ deposit\(s\) seen on \w+ in blocks/ },
  // activities/evm-deposit-rewind.ts, after the rewind's transaction (cursor back, deposits orphaned).
  rewound: { activityType: 'scanEvmDeposits', message: /^reorganisation of \w+: rewound/ },
  // activities/incoming-sepa.activities.ts, after one credit's transaction, before the cursor moves.
  credited: { activityType: 'ingestBankNotifications', message: /^incoming SEPA credit \S+ credited to partner/ },
};

const MOMENTS: readonly FaultMoment[] = ['before', 'after', 'seen', 'rewound', 'credited'];

/** `reserveWithdrawal:before` (or `broadcastWithdrawal:after@litecoin`) → the activity, the moment (and the network); undefined when no fault is asked for. */
export function parseFaultKillAt(
  value: string | undefined,
): { activityType: string; moment: FaultMoment; network?: WithdrawalNetwork } | undefined {
  if (!value) return undefined;
  const match = /^([A-Za-z]+):([a-z]+)(?:@([a-z]+))?$/.exec(value);
  const moment = match?.[2] as FaultMoment | undefined;
  const network = match?.[3] as WithdrawalNetwork | undefined;
  if (!match || !moment || !MOMENTS.includes(moment) || (network && !WITHDRAWAL_NETWORKS.includes(network))) {
    throw new Error(
      `FAULT_KILL_AT must be <activityType>:<${MOMENTS.join('|')}>[@<${WITHDRAWAL_NETWORKS.join('|')}>], got ${JSON.stringify(value)}`,
    );
  }
  const inner = INNER_MOMENTS[moment];
  if (inner && inner.activityType !== match[1])
    throw new Error(`FAULT_KILL_AT: ${moment} is a moment of ${inner.activityType}, not of ${match[1]}`);
  return { activityType: match[1]!, moment, ...(network ? { network } : {}) };
}

/** The file a fault worker creates (exclusively) just before it kills itself at that boundary. */
export function faultMarkerPath(markerDir: string, activityType: string, moment: FaultMoment, network?: string): string {
  return path.join(markerDir, `${activityType}-${moment}${network ? `-${network}` : ''}.killed`);
}

/** What the marker holds: the workflow and attempt the kill hit. */
export interface FaultMarker {
  workflowId: string;
  attempt: number;
  local: boolean;
  /** The worker's process: its Temporal identity is pid@host (the campaign releases its money-in attempts by it). */
  pid: number;
  /** What the activity had done: the log line of an inner moment, or the result of a run killed `after`. */
  detail?: string;
}
