import { FAULT_BOUNDARIES, WITHDRAWAL_NETWORKS, faultKillAt, faultMarkerPath, parseFaultKillAt } from '../faults/support/fault-points';

/** The fault campaign's boundaries (test/faults): what FAULT_KILL_AT names, and where its marker goes. */
describe('the fault campaign’s boundaries', () => {
  it('kills the withdrawal activities that talk to the chain once per network, every other activity once', () => {
    const named = FAULT_BOUNDARIES.map(faultKillAt);
    expect(new Set(named).size).toBe(named.length);
    for (const activity of ['broadcastWithdrawal', 'pollWithdrawalConfirmation'])
      for (const moment of ['before', 'after'])
        expect(named.filter((at) => at.startsWith(`${activity}:${moment}`))).toEqual(
          WITHDRAWAL_NETWORKS.map((network) => `${activity}:${moment}@${network}`),
        );
    expect(named).toContain('reserveWithdrawal:before');
    expect(named.filter((at) => at.includes('@'))).toHaveLength(4 * WITHDRAWAL_NETWORKS.length);
  });

  it('reads FAULT_KILL_AT with or without a network, and refuses one the campaign has no chain for', () => {
    expect(parseFaultKillAt('settleWithdrawal:after')).toEqual({ activityType: 'settleWithdrawal', moment: 'after' });
    expect(parseFaultKillAt('broadcastWithdrawal:before@litecoin')).toEqual({
      activityType: 'broadcastWithdrawal',
      moment: 'before',
      network: 'litecoin',
    });
    expect(parseFaultKillAt(undefined)).toBeUndefined();
    expect(() => parseFaultKillAt('broadcastWithdrawal:before@dogecoin')).toThrow('FAULT_KILL_AT must be');
    expect(() => parseFaultKillAt('broadcastWithdrawal:sometime')).toThrow('FAULT_KILL_AT must be');
  });

  it('gives each boundary a marker of its own', () => {
    const markers = FAULT_BOUNDARIES.map((boundary) => faultMarkerPath('/m', boundary.activityType, boundary.moment, boundary.network));
    expect(new Set(markers).size).toBe(markers.length);
    expect(faultMarkerPath('/m', 'broadcastWithdrawal', 'after', 'polygon')).toBe('/m/broadcastWithdrawal-after-polygon.killed');
  });
});
