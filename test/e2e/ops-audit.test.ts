import { randomUUID } from 'node:crypto';
import os from 'node:os';
import { createTestPartner } from '../support/fixtures';
import type { TestPartner } from '../support/fixtures';
import { balancesOf } from '../support/operations';
import { runOpsCli } from '../support/ops-cli';
import { useTestApi } from '../support/use-test-api';

/** `npm run ops -- …` against the run's database, with `env` added (OPS_OPERATOR, MANUAL_CREDIT_APPROVAL_ABOVE_EUR). */
const opsWith = (env: Record<string, string>, ...args: string[]) => runOpsCli(args, env);
const ops = (...args: string[]) => opsWith({}, ...args);

/** One entry of `ops audit list`. */
interface AuditListing {
  id: string;
  at: string;
  actor: string;
  osUser: string;
  action: string;
  subject: { type: string; id: string; partnerId: string | null };
  reason: string | null;
  details: Record<string, unknown> | null;
}

const ctx = useTestApi();
const osUser = os.userInfo().username;

async function auditRowsOf(partnerId: string): Promise<number> {
  const [row] = await ctx.orm.em
    .fork()
    .getConnection()
    .execute(`select count(*)::int as count from operator_action where partner_id = ?`, [partnerId]);
  return (row as { count: number }).count;
}

const userFields = (partnerId: string) => [
  '--partner',
  partnerId,
  '--external-user-id',
  'ext-audit-1',
  '--email',
  'jan@example.com',
  '--first-name',
  'Jan',
  '--last-name',
  'Kowalski',
  '--address',
  'Prosta 1',
  '--city',
  'Warszawa',
  '--country',
  'PL',
  '--document-type',
  'ID_CARD',
  '--document-number',
  'ABC123456',
];

describe('the operators audit trail', () => {
  it('every state-changing command writes one row (who, the OS user, what, the subject, why), no secrets; reads write none', async () => {
    const created = await ops('partner', 'create', '--name', 'Audited', '--operator', 'alice', '--reason', 'onboarding ticket 42');
    expect(created.code).toBe(0);
    const partnerId = created.output.partnerId as string;
    const key = await opsWith({ OPS_OPERATOR: 'bob' }, 'key', 'create', '--partner', partnerId, '--reason', 'a key for their staging');
    const revoked = await ops('key', 'revoke', '--key', key.output.apiKeyId, '--operator', 'carol', '--reason', 'leaked in a log');
    const status = await ops(
      'account',
      'set-status',
      '--partner',
      partnerId,
      '--currency',
      'eur',
      '--status',
      'WAITING_TO_BE_ACTIVATED',
      '--reason',
      'KYC review',
    );
    const user = await ops('user', 'upsert', ...userFields(partnerId), '--reason', 'registered by phone');
    const deposit = await ops('deposit', '--partner', partnerId, '--currency', 'eur', '--amount', '100', '--reason', 'wire ref 123');
    const webhook = await ops(
      'webhook',
      'set',
      '--partner',
      partnerId,
      '--url',
      'https://example.com/hooks?token=abc',
      '--reason',
      'asked',
    );
    const removed = await ops('webhook', 'remove', '--partner', partnerId);
    for (const result of [key, revoked, status, user, deposit, webhook, removed]) expect(result.code).toBe(0);
    expect(await auditRowsOf(partnerId)).toBe(8);

    const [all, keyCreations, newestTwo, deliveries] = await Promise.all([
      ops('audit', 'list', '--partner', partnerId),
      ops('audit', 'list', '--partner', partnerId, '--action', 'key-create'),
      ops('audit', 'list', '--partner', partnerId, '--limit', '2'),
      ops('webhook', 'deliveries', '--partner', partnerId),
    ]);
    expect(deliveries.code).toBe(0);
    expect(await auditRowsOf(partnerId)).toBe(8);

    const actions = all.output.actions as AuditListing[];
    const row = (action: string) => actions.find((entry) => entry.action === action)!;
    // Newest first.
    expect(actions.map((entry) => entry.action)).toEqual([
      'webhook-remove',
      'webhook-set',
      'deposit',
      'user-upsert',
      'account-set-status',
      'key-revoke',
      'key-create',
      'partner-create',
    ]);
    for (const entry of actions) {
      expect(Object.keys(entry).sort()).toEqual(['action', 'actor', 'at', 'details', 'id', 'osUser', 'reason', 'subject']);
      expect(entry.osUser).toBe(osUser);
      expect(entry.subject.partnerId).toBe(partnerId);
    }
    expect(row('partner-create')).toMatchObject({
      actor: 'alice',
      reason: 'onboarding ticket 42',
      subject: { type: 'partner', id: partnerId },
      details: { name: 'Audited', apiKeyId: expect.any(String) },
    });
    expect(row('key-create')).toMatchObject({
      actor: 'bob',
      reason: 'a key for their staging',
      subject: { type: 'api-key', id: key.output.apiKeyId },
    });
    expect(row('key-revoke')).toMatchObject({
      actor: 'carol',
      reason: 'leaked in a log',
      subject: { type: 'api-key', id: key.output.apiKeyId },
    });
    expect(row('account-set-status')).toMatchObject({
      actor: osUser,
      reason: 'KYC review',
      subject: { type: 'account', id: status.output.accountId },
      details: { currency: 'eur', from: 'ACTIVE', to: 'WAITING_TO_BE_ACTIVATED' },
    });
    expect(row('user-upsert')).toMatchObject({
      subject: { type: 'partner-user', id: user.output.userId },
      details: { externalUserId: 'ext-audit-1', created: true },
    });
    expect(row('deposit')).toMatchObject({
      reason: 'wire ref 123',
      subject: { type: 'deposit', id: deposit.output.transactionId },
      details: { currency: 'eur', type: 'sepaDeposit', amountEur: '100' },
    });
    expect(row('webhook-set')).toMatchObject({
      subject: { type: 'webhook-endpoint', id: partnerId },
      details: { url: 'https://example.com/hooks', rotated: false },
    });
    expect(row('webhook-remove')).toMatchObject({ reason: null, details: { removed: true, eventsGivenUp: 0 } });
    // Never a secret, nor the personal data of the user.
    const trail = JSON.stringify(actions);
    for (const secret of [created.output.apiKey, key.output.apiKey, webhook.output.secret, 'token=abc', 'Kowalski', 'ABC123456']) {
      expect(trail).not.toContain(secret);
    }

    expect(keyCreations.output.actions).toEqual([row('key-create')]);
    expect(newestTwo.output.actions).toEqual(actions.slice(0, 2));
  }, 300_000);

  it('answers an unknown flag, a reason with control characters, and --reason on a read as usage mistakes naming them; nothing is written', async () => {
    const partner = await createTestPartner(ctx.orm);
    const [unknownFlag, badReason, longOperator, readWithReason, badLimit, badAction] = await Promise.all([
      ops('key', 'create', '--partner', partner.partnerId, '--partnr', 'x'),
      ops('key', 'create', '--partner', partner.partnerId, '--reason', 'ring\u0007ring'),
      ops('key', 'create', '--partner', partner.partnerId, '--operator', 'o'.repeat(201)),
      ops('audit', 'list', '--reason', 'curious'),
      ops('audit', 'list', '--limit', '501'),
      ops('audit', 'list', '--action', 'drop-table'),
    ]);
    const usage = expect.stringContaining('usage: npm run ops');
    expect(unknownFlag).toEqual({ code: 2, output: { error: 'invalid-request', message: 'unknown flag --partnr', usage } });
    expect(badReason).toEqual({
      code: 2,
      output: { error: 'invalid-request', message: '--reason must not contain control characters', usage },
    });
    expect(longOperator).toEqual({
      code: 2,
      output: { error: 'invalid-request', message: '--operator must be at most 200 characters', usage },
    });
    expect(readWithReason).toEqual({ code: 2, output: { error: 'invalid-request', message: '--reason does not apply here', usage } });
    expect(badLimit).toEqual({
      code: 2,
      output: { error: 'invalid-request', message: '--limit must be a whole number from 1 to 500', usage },
    });
    expect(badAction).toEqual({
      code: 2,
      output: { error: 'invalid-request', message: expect.stringContaining('--action must be one of'), usage },
    });
    const [keys] = await ctx.orm.em
      .fork()
      .getConnection()
      .execute(`select count(*)::int as count from api_key where partner_id = ?`, [partner.partnerId]);
    expect(keys).toEqual({ count: 1 });
    expect(await auditRowsOf(partner.partnerId)).toBe(0);
  }, 120_000);
});

describe('manual credits above MANUAL_CREDIT_APPROVAL_ABOVE_EUR', () => {
  // Every command of the test runs from one OS account, as in a container where operators share one.
  const approvalAbove1000 = { MANUAL_CREDIT_APPROVAL_ABOVE_EUR: '1000', MANUAL_CREDIT_APPROVAL_OS_USERS: 'shared' };

  it('wait for a second operator: not the requester, once; the balance moves only on approval', async () => {
    const partner = await createTestPartner(ctx.orm);
    // 0.5 eth at the default 3000 EUR: 1500 EUR.
    const requested = await opsWith(
      approvalAbove1000,
      'deposit',
      '--partner',
      partner.partnerId,
      '--currency',
      'eth',
      '--amount',
      '0.5',
      '--operator',
      'alice',
      '--reason',
      'OTC trade 7 settled off-chain',
    );
    expect(requested).toEqual({
      code: 0,
      output: {
        pendingCreditId: expect.stringMatching(/^[0-9a-f-]{36}$/),
        status: 'PENDING_APPROVAL',
        why: 'worth 1500 EUR, over 1000',
        partnerId: partner.partnerId,
        currency: 'eth',
        amount: '0.5',
        amountEur: '1500',
        approvalAboveEur: '1000',
        requestedBy: 'alice',
      },
    });
    const creditId = requested.output.pendingCreditId as string;
    expect((await balancesOf(ctx.api, partner)).eth).toBe('0.000000000000000000');

    const [selfApproval, atThreshold] = await Promise.all([
      opsWith(approvalAbove1000, 'deposit', 'approve', creditId, '--operator', 'Alice'),
      opsWith(approvalAbove1000, 'deposit', '--partner', partner.partnerId, '--currency', 'eur', '--amount', '1000', '--operator', 'alice'),
    ]);
    expect(selfApproval).toEqual({
      code: 1,
      output: { error: 'refused', reason: 'self-approval', message: expect.stringContaining('another operator must approve it') },
    });
    expect(atThreshold).toEqual({ code: 0, output: { transactionId: expect.any(String) } });
    expect(await balancesOf(ctx.api, partner)).toMatchObject({ eth: '0.000000000000000000', eur: '1000.00' });

    const approved = await opsWith(approvalAbove1000, 'deposit', 'approve', creditId, '--operator', 'bob', '--reason', 'trade confirmed');
    expect(approved).toEqual({
      code: 0,
      output: { pendingCreditId: creditId, status: 'APPROVED', transactionId: creditId, requestedBy: 'alice', approvedBy: 'bob' },
    });
    expect((await balancesOf(ctx.api, partner)).eth).toBe('0.500000000000000000');

    const again = await opsWith(approvalAbove1000, 'deposit', 'approve', creditId, '--operator', 'carol');
    expect(again).toMatchObject({ code: 1, output: { error: 'refused', reason: 'already-approved' } });
    expect((await balancesOf(ctx.api, partner)).eth).toBe('0.500000000000000000');

    const trail = await ops('audit', 'list', '--partner', partner.partnerId);
    expect(trail.output.actions).toEqual([
      expect.objectContaining({
        action: 'deposit-approve',
        actor: 'bob',
        reason: 'trade confirmed',
        subject: { type: 'manual-credit', id: creditId, partnerId: partner.partnerId },
        details: expect.objectContaining({ transactionId: creditId, requestedBy: 'alice' }),
      }),
      expect.objectContaining({ action: 'deposit', actor: 'alice', details: expect.objectContaining({ amountEur: '1000' }) }),
      expect.objectContaining({
        action: 'deposit-request',
        actor: 'alice',
        osUser,
        reason: 'OTC trade 7 settled off-chain',
        subject: { type: 'manual-credit', id: creditId, partnerId: partner.partnerId },
        details: expect.objectContaining({ currency: 'eth', amount: '0.5', amountEur: '1500', approvalAboveEur: '1000' }),
      }),
    ]);
  }, 300_000);

  it('count what one operator credited alone lately, and what one partner was credited so: a credit split under the threshold waits too', async () => {
    const partner = await createTestPartner(ctx.orm);
    const other = await createTestPartner(ctx.orm);
    const [dora, erin] = [`dora-${randomUUID().slice(0, 8)}`, `erin-${randomUUID().slice(0, 8)}`];
    const eur = (to: TestPartner, amount: string, operator: string) =>
      opsWith(approvalAbove1000, 'deposit', '--partner', to.partnerId, '--currency', 'eur', '--amount', amount, '--operator', operator);
    expect(await eur(partner, '600', dora)).toMatchObject({ code: 0, output: { transactionId: expect.any(String) } });
    // The same operator again, to another partner: 1200 by one operator alone.
    expect(await eur(other, '600', dora)).toMatchObject({
      code: 0,
      output: { status: 'PENDING_APPROVAL', why: `with what ${dora} credited alone in the last 24 hours, 1200 EUR, over 1000` },
    });
    // Another operator, to the first partner: 1200 to one partner by operators alone.
    expect(await eur(partner, '600', erin)).toMatchObject({
      code: 0,
      output: {
        status: 'PENDING_APPROVAL',
        why: `with what partner ${partner.partnerId} was credited by one operator alone in the last 24 hours, 1200 EUR, over 1000`,
      },
    });
    expect(await eur(other, '400', erin)).toMatchObject({ code: 0, output: { transactionId: expect.any(String) } });
    expect(await balancesOf(ctx.api, partner)).toMatchObject({ eur: '600.00' });
    expect(await balancesOf(ctx.api, other)).toMatchObject({ eur: '400.00' });
  }, 120_000);

  it('by default also need another OS account: a second name typed from the same login is refused', async () => {
    const partner = await createTestPartner(ctx.orm);
    const requested = await opsWith(
      { MANUAL_CREDIT_APPROVAL_ABOVE_EUR: '1000' },
      'deposit',
      '--partner',
      partner.partnerId,
      '--currency',
      'eur',
      '--amount',
      '5000',
      '--operator',
      'alice',
    );
    expect(requested).toMatchObject({ code: 0, output: { status: 'PENDING_APPROVAL' } });
    const approval = await opsWith(
      { MANUAL_CREDIT_APPROVAL_ABOVE_EUR: '1000' },
      'deposit',
      'approve',
      requested.output.pendingCreditId as string,
      '--operator',
      'bob',
    );
    expect(approval).toEqual({
      code: 1,
      output: {
        error: 'refused',
        reason: 'self-approval',
        message: expect.stringContaining(
          `was requested from the OS account ${osUser}: another operator must approve it from their own account`,
        ),
      },
    });
    expect((await balancesOf(ctx.api, partner)).eur).toBe('0.00');
  }, 120_000);
});
