import { createActivities, createSweeperActivities } from '../../activities';
import type { ActivityDependencies } from '../../activities/dependencies';
import { systemClock } from '../../core/clock';
import { createLogger } from '../../core/logger';

/** Building activities only makes closures: nothing here is called, so nothing needs a database or a chain. */
const unused = <T>(): T => ({}) as T;

const deps: ActivityDependencies = {
  orm: unused<ActivityDependencies['orm']>(),
  pool: unused<ActivityDependencies['pool']>(),
  clock: systemClock,
  log: createLogger('sweeper-activities-test', 'error'),
  chain: unused<ActivityDependencies['chain']>(),
  bank: unused<ActivityDependencies['bank']>(),
  compliance: { travelRuleThresholdEur: '1000', travelRuleDeadlineMs: 1_000, denyListedAddresses: [] },
};

const SWEEP_ACTIVITIES = ['startDueEvmSweeps', 'claimEvmSweep', 'advanceEvmSweep', 'sweepUtxoDeposits'];

describe('what the sweeper and the general worker run', () => {
  it('gives the sweeper, the only process with deposit keys, the sweeps and nothing else', () => {
    const sweeper = Object.keys(createSweeperActivities({ pool: deps.pool, clock: deps.clock, log: deps.log })).sort();
    expect(sweeper).toEqual([...SWEEP_ACTIVITIES].sort());
  });

  it('gives the general worker (webhooks, bank documents, partner-chosen hosts) no sweep', () => {
    const general = Object.keys(
      createActivities({ ...deps, webhookDelivery: { retryBaseMs: 1_000 }, webhookTargets: { allowLoopback: false } }),
    );
    expect(general).toEqual(
      expect.arrayContaining(['deliverWebhookEvents', 'ingestBankNotifications', 'scanEvmDeposits', 'reconcileLedger']),
    );
    expect(general.filter((name) => SWEEP_ACTIVITIES.includes(name) || /sweep/i.test(name))).toEqual([]);
  });
});
