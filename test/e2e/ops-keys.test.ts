import { hashApiKey } from '../../core/api-keys';
import { createTestPartner } from '../support/fixtures';
import { runOpsCli } from '../support/ops-cli';
import { useTestApi } from '../support/use-test-api';

/** The key commands of `npm run ops`: list, audit rows, and what they refuse without changing anything. */
const ctx = useTestApi();
const ops = (...args: string[]) => runOpsCli(args);
const UNKNOWN_ID = '00000000-0000-4000-8000-0000000000ff';

/** Runs the command lines a few at a time (each is a process of its own), answers in their order. */
async function inBatches(commandLines: string[][]): Promise<Awaited<ReturnType<typeof runOpsCli>>[]> {
  const answers: Awaited<ReturnType<typeof runOpsCli>>[] = [];
  for (let start = 0; start < commandLines.length; start += 4) {
    answers.push(...(await Promise.all(commandLines.slice(start, start + 4).map((args) => runOpsCli(args)))));
  }
  return answers;
}

async function countsOf(partnerId: string): Promise<{ keys: number; audit: number; lastChange: string | null }> {
  const [row] = await ctx.orm.em
    .fork()
    .getConnection()
    .execute(
      `select (select count(*)::int from api_key where partner_id = ?) as keys,
              (select count(*)::int from operator_action where partner_id = ?) as audit,
              (select max(greatest(created_at, expires_at, revoked_at))::text from api_key where partner_id = ?) as "lastChange"`,
      [partnerId, partnerId, partnerId],
    );
  return row as { keys: number; audit: number; lastChange: string | null };
}

describe('ops key list', () => {
  it("lists a partner's keys newest first with scope, dates and use, never a key or its hash", async () => {
    const { output: partner } = await ops('partner', 'create', '--name', 'Listed keys');
    const [first] = (await ops('key', 'list', '--partner', partner.partnerId)).output.apiKeys;
    const read = await ops('key', 'create', '--partner', partner.partnerId, '--scope', 'read', '--expires-in-days', '7');
    expect(read.code).toBe(0);
    expect((await ops('key', 'revoke', '--key', first.apiKeyId)).code).toBe(0);

    const listed = await ops('key', 'list', '--partner', partner.partnerId);
    expect(listed.code).toBe(0);
    expect(listed.output).toEqual({
      apiKeys: [
        {
          apiKeyId: read.output.apiKeyId,
          keyPrefix: read.output.apiKey.slice(0, 9),
          scope: 'read',
          createdAt: expect.any(String),
          expiresAt: read.output.expiresAt,
          lastUsedAt: null,
          revokedAt: null,
          replacedBy: null,
        },
        {
          apiKeyId: first.apiKeyId,
          keyPrefix: partner.apiKey.slice(0, 9),
          scope: 'payments',
          createdAt: first.createdAt,
          expiresAt: null,
          lastUsedAt: null,
          revokedAt: expect.any(String),
          replacedBy: null,
        },
      ],
    });
    const text = JSON.stringify(listed.output);
    for (const secret of [partner.apiKey, read.output.apiKey, hashApiKey(partner.apiKey), hashApiKey(read.output.apiKey)]) {
      expect(text).not.toContain(secret);
    }
  }, 120_000);
});

describe('ops key audit rows', () => {
  it('records key-create with its scope and expiry, and key-rotate with both keys and expiries, never a key', async () => {
    const partner = await createTestPartner(ctx.orm);
    const created = await ops('key', 'create', '--partner', partner.partnerId, '--scope', 'read', '--expires-in-days', '1');
    const rotated = await ops('key', 'rotate', '--key', created.output.apiKeyId, '--operator', 'dana', '--reason', 'yearly rotation');
    expect(rotated.code).toBe(0);
    const { output } = await ops('audit', 'list', '--partner', partner.partnerId);
    expect(output.actions).toEqual([
      expect.objectContaining({
        action: 'key-rotate',
        actor: 'dana',
        reason: 'yearly rotation',
        subject: { type: 'api-key', id: created.output.apiKeyId, partnerId: partner.partnerId },
        details: {
          newApiKeyId: rotated.output.apiKeyId,
          scope: 'read',
          expiresAt: rotated.output.expiresAt,
          oldKeyExpiresAt: rotated.output.oldKeyExpiresAt,
          overlapMinutes: 1440,
        },
      }),
      expect.objectContaining({
        action: 'key-create',
        subject: { type: 'api-key', id: created.output.apiKeyId, partnerId: partner.partnerId },
        details: { scope: 'read', expiresAt: created.output.expiresAt },
      }),
    ]);
    // A key of one day, rotated at once with the default overlap of a day: the old key keeps its own end.
    expect(rotated.output.oldKeyExpiresAt).toBe(created.output.expiresAt);
    const trail = JSON.stringify(output);
    for (const secret of [created.output.apiKey, rotated.output.apiKey]) expect(trail).not.toContain(secret);
  }, 120_000);
});

describe('ops key refusals', () => {
  it('refuses to rotate a revoked, an expired or an already rotated key, with a clear error, changing nothing', async () => {
    const partner = await createTestPartner(ctx.orm);
    const [revoked, expired, once] = await Promise.all([
      ops('key', 'create', '--partner', partner.partnerId),
      ops('key', 'create', '--partner', partner.partnerId, '--expires-in-days', '1'),
      ops('key', 'create', '--partner', partner.partnerId),
    ]);
    expect((await ops('key', 'revoke', '--key', revoked.output.apiKeyId)).code).toBe(0);
    await ctx.orm.em
      .fork()
      .getConnection()
      .execute(`update api_key set expires_at = now() - interval '1 minute' where id = ?`, [expired.output.apiKeyId]);
    const rotation = await ops('key', 'rotate', '--key', once.output.apiKeyId);
    expect(rotation.code).toBe(0);
    const before = await countsOf(partner.partnerId);

    const [ofRevoked, ofExpired, again] = await Promise.all([
      ops('key', 'rotate', '--key', revoked.output.apiKeyId),
      ops('key', 'rotate', '--key', expired.output.apiKeyId),
      ops('key', 'rotate', '--key', once.output.apiKeyId),
    ]);
    expect(ofRevoked).toEqual({
      code: 1,
      output: {
        error: 'refused',
        reason: 'key-revoked',
        message: expect.stringContaining(`API key ${revoked.output.apiKeyId} was revoked at`),
      },
    });
    expect(ofExpired).toEqual({
      code: 1,
      output: { error: 'refused', reason: 'key-expired', message: expect.stringContaining('create a new key instead') },
    });
    expect(again).toEqual({
      code: 1,
      output: {
        error: 'refused',
        reason: 'key-already-rotated',
        message: `API key ${once.output.apiKeyId} was already rotated to ${rotation.output.apiKeyId}: rotate that key instead (or revoke it)`,
      },
    });
    expect(await countsOf(partner.partnerId)).toEqual(before);
  }, 180_000);

  it('answers bad input (scope, days, minutes, unknown key or partner) with a clear error, changing nothing', async () => {
    const partner = await createTestPartner(ctx.orm);
    const before = await countsOf(partner.partnerId);
    const create = (...flags: string[]) => ['key', 'create', '--partner', partner.partnerId, ...flags];
    const rotate = (...flags: string[]) => ['key', 'rotate', '--key', partner.apiKeyId, ...flags];
    const answers = await inBatches([
      create('--scope', 'admin'),
      create('--expires-in-days', '0'),
      create('--expires-in-days=-1'),
      create('--expires-in-days', '3651'),
      create('--expires-in-days', '1.5'),
      create('--expires-in-days', '99999999999999999999'),
      rotate('--overlap-minutes', '43201'),
      rotate('--overlap-minutes=-5'),
      rotate('--overlap-minutes', '1e3'),
      ['key', 'rotate', '--key', UNKNOWN_ID],
      ['key', 'create', '--partner', UNKNOWN_ID],
      ['key', 'list', '--partner', UNKNOWN_ID],
      ['key', 'list', '--partner', partner.partnerId, '--reason', 'curious'],
    ]);
    const usage = (message: string) => ({ code: 2, output: { error: 'invalid-request', message, usage: expect.any(String) } });
    const days = '--expires-in-days must be a whole number of days, 1 to 3650';
    const minutes = '--overlap-minutes must be a whole number of minutes, 0 to 43200';
    expect(answers).toEqual([
      usage('--scope must be one of read, payments'),
      usage(days),
      usage(days),
      usage(days),
      usage(days),
      usage(days),
      usage(minutes),
      usage(minutes),
      usage(minutes),
      { code: 1, output: { error: 'not-found', message: `no API key ${UNKNOWN_ID}` } },
      { code: 1, output: { error: 'partner-not-found', message: `no partner ${UNKNOWN_ID}` } },
      { code: 1, output: { error: 'partner-not-found', message: `no partner ${UNKNOWN_ID}` } },
      usage('--reason does not apply here'),
    ]);
    expect(await countsOf(partner.partnerId)).toEqual(before);
  }, 180_000);
});
