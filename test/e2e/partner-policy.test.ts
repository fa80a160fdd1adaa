import { randomUUID } from 'node:crypto';
import { createTestPartner } from '../support/fixtures';
import type { TestPartner } from '../support/fixtures';
import { runOpsCli } from '../support/ops-cli';
import { useTestApi } from '../support/use-test-api';

const ctx = useTestApi();

const setPolicy = (partner: TestPartner, ...flags: string[]) =>
  runOpsCli(['partner', 'set-policy', '--partner', partner.partnerId, ...flags]);

/** The audit rows of set-policy for the partner, newest first. */
async function policyAudit(partner: TestPartner): Promise<Array<{ action: string; reason: string | null; details: object }>> {
  const listed = await runOpsCli(['audit', 'list', '--partner', partner.partnerId, '--action', 'partner-set-policy']);
  expect(listed.code).toBe(0);
  return listed.output.actions;
}

describe('ops partner set-policy', () => {
  it('prints the policy that applies: the defaults, then each change, keeping what a call does not name; each call audited', async () => {
    const partner = await createTestPartner(ctx.orm);
    const { partnerId } = partner;
    expect(await setPolicy(partner)).toEqual({
      code: 0,
      output: { partnerId, allowlist: 'off', coolingOffMinutes: 1440, dailyLimitEur: null },
    });
    const required = await setPolicy(partner, '--allowlist', 'required', '--cooling-off-minutes', '90', '--reason', 'key leak drill');
    expect(required.output).toEqual({ partnerId, allowlist: 'required', coolingOffMinutes: 90, dailyLimitEur: null });
    const limited = await setPolicy(partner, '--daily-limit-eur', '5000');
    expect(limited.output).toMatchObject({ partnerId, allowlist: 'required', coolingOffMinutes: 90 });
    expect(Number(limited.output.dailyLimitEur)).toBe(5000);
    const bounds = await setPolicy(partner, '--cooling-off-minutes', '0', '--daily-limit-eur', 'none');
    expect(bounds.output).toEqual({ partnerId, allowlist: 'required', coolingOffMinutes: 0, dailyLimitEur: null });
    expect((await setPolicy(partner, '--cooling-off-minutes', '10080')).output.coolingOffMinutes).toBe(10080);

    const audit = await policyAudit(partner);
    expect(audit).toHaveLength(5);
    expect(audit[3]).toMatchObject({
      action: 'partner-set-policy',
      reason: 'key leak drill',
      details: { allowlist: 'required', coolingOffMinutes: 90 },
    });
  });

  // Each case is an operator CLI process (tsx): on a loaded machine each takes seconds.
  it('refuses bad input with a clear error and changes nothing', async () => {
    const partner = await createTestPartner(ctx.orm);
    const before = await setPolicy(partner, '--allowlist', 'required', '--cooling-off-minutes', '30');
    expect(before.code).toBe(0);

    const usage = (message: string) => ({ code: 2, output: { error: 'invalid-request', message, usage: expect.any(String) } });
    const refusals: Array<[string[], unknown]> = [
      [['--cooling-off-minutes=-1'], usage('--cooling-off-minutes must be a whole number of minutes, 0 to 10080')],
      [['--cooling-off-minutes', '10081'], usage('--cooling-off-minutes must be at most 10080 (a week)')],
      [['--cooling-off-minutes', '1.5'], usage('--cooling-off-minutes must be a whole number of minutes, 0 to 10080')],
      [['--allowlist', 'maybe'], usage('--allowlist must be required or off')],
      [['--allowlist', 'required', '--cooling-off-minutes', '10081'], usage('--cooling-off-minutes must be at most 10080 (a week)')],
    ];
    for (const [flags, expected] of refusals)
      expect({ flags, ...(await setPolicy(partner, ...flags)) }).toEqual({ flags, ...(expected as object) });

    const unknown = randomUUID();
    expect(await runOpsCli(['partner', 'set-policy', '--partner', unknown, '--allowlist', 'off'])).toEqual({
      code: 1,
      output: { error: 'partner-not-found', message: `no partner ${unknown}` },
    });
    expect((await runOpsCli(['partner', 'set-policy', '--partner', 'acme', '--allowlist', 'off'])).output.message).toBe(
      '--partner must be a UUID',
    );

    // Only the first call changed anything, and only it was audited.
    expect(await policyAudit(partner)).toHaveLength(1);
    const rows = await ctx.orm.em
      .fork()
      .getConnection()
      .execute(`select allowlist_required, cooling_off_minutes from partner_policy where partner_id = ?`, [partner.partnerId]);
    expect(rows).toEqual([{ allowlist_required: true, cooling_off_minutes: 30 }]);
    expect(await runOpsCli(['audit', 'list', '--partner', unknown])).toMatchObject({ output: { actions: [] } });
  }, 180_000);
});
