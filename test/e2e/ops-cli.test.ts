import { runOpsCli } from '../support/ops-cli';
import { useTestApi } from '../support/use-test-api';

/** `npm run ops -- …` against the run's database. */
const ops = (...args: string[]) => runOpsCli(args);

const ctx = useTestApi();

describe('operator CLI', () => {
  it('partner create gives a working key and an active EUR account plus one crypto account per currency, all at zero', async () => {
    const created = await ops('partner', 'create', '--name', 'CLI Partner', '--fee-percentage', '0.25');
    expect(created.code).toBe(0);
    expect(Object.keys(created.output).sort()).toEqual(['apiKey', 'partnerId']);
    const balances = await ctx.api.request('GET', '/v1/partner/balances', { apiKey: created.output.apiKey });
    expect(balances.json.fiatBalances).toEqual([expect.objectContaining({ name: 'eur', amount: '0.00', status: 'ACTIVE' })]);
    expect(balances.json.cryptoBalances.map((balance: { name: string }) => balance.name).sort()).toEqual([
      'btc',
      'doge',
      'eth',
      'ltc',
      'pol',
      'usdc',
    ]);
    const lock = await ctx.api.request('GET', '/v1/partner/get-lock', { apiKey: created.output.apiKey });
    expect(lock.json.feePercentage).toBe(0.25);
  });

  it('deposit posts through the ledger: the balance and the history show it, to 18 decimals', async () => {
    const { output: partner } = await ops('partner', 'create', '--name', 'Depositor');
    const deposit = await ops('deposit', '--partner', partner.partnerId, '--currency', 'eth', '--amount', '1.000000000000000001');
    expect(deposit.code).toBe(0);
    expect(deposit.output).toEqual({ transactionId: expect.stringMatching(/^[0-9a-f-]{36}$/) });
    const balances = await ctx.api.request('GET', '/v1/partner/balances', { apiKey: partner.apiKey });
    expect(balances.text).toContain('"amount":"1.000000000000000001"');
    const now = new Date();
    const history = await ctx.api.request('GET', `/v1/partner/transaction-history/${now.getUTCMonth() + 1}/${now.getUTCFullYear()}`, {
      apiKey: partner.apiKey,
    });
    expect(history.text).toContain('"amount":1.000000000000000001');
    expect(history.json[0]).toMatchObject({
      id: deposit.output.transactionId,
      type: 'cryptoDeposit',
      currency: 'eth',
      status: 'SUCCESSFUL',
    });
  });

  it('deposit accepts an explicit type and refuses too many decimals', async () => {
    const { output: partner } = await ops('partner', 'create', '--name', 'Typed');
    expect(
      (await ops('deposit', '--partner', partner.partnerId, '--currency', 'eur', '--amount', '10', '--type', 'fiatDeposit')).code,
    ).toBe(0);
    const refused = await ops('deposit', '--partner', partner.partnerId, '--currency', 'eur', '--amount', '10.001');
    expect(refused.code).toBe(1);
    expect(refused.output).toEqual({ error: 'invalid-request', message: 'eur allows at most 2 decimals' });
  });

  it('key create adds a key; key revoke shuts it out', async () => {
    const { output: partner } = await ops('partner', 'create', '--name', 'Keys');
    const key = await ops('key', 'create', '--partner', partner.partnerId);
    expect(Object.keys(key.output).sort()).toEqual(['apiKey', 'apiKeyId', 'expiresAt', 'scope']);
    expect(key.output).toMatchObject({ scope: 'payments', expiresAt: null });
    expect((await ctx.api.request('GET', '/v1/partner/balances', { apiKey: key.output.apiKey })).status).toBe(200);
    expect((await ops('key', 'revoke', '--key', key.output.apiKeyId)).code).toBe(0);
    expect((await ctx.api.request('GET', '/v1/partner/balances', { apiKey: key.output.apiKey })).status).toBe(401);
    expect((await ctx.api.request('GET', '/v1/partner/balances', { apiKey: partner.apiKey })).status).toBe(200);
  });

  it('account set-status changes the EUR balance status', async () => {
    const { output: partner } = await ops('partner', 'create', '--name', 'Status');
    const changed = await ops(
      'account',
      'set-status',
      '--partner',
      partner.partnerId,
      '--currency',
      'eur',
      '--status',
      'WAITING_TO_BE_ACTIVATED',
    );
    expect(changed.output).toMatchObject({ currency: 'eur', status: 'WAITING_TO_BE_ACTIVATED' });
    const balances = await ctx.api.request('GET', '/v1/partner/balances', { apiKey: partner.apiKey });
    expect(balances.json.fiatBalances[0].status).toBe('WAITING_TO_BE_ACTIVATED');
  });

  it('user upsert registers a user once per external id and updates it after', async () => {
    const { output: partner } = await ops('partner', 'create', '--name', 'Users');
    const fields = [
      '--partner',
      partner.partnerId,
      '--external-user-id',
      'ext-1',
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
      '--pesel',
      '90010112345',
      '--birth-country',
      'PL',
      '--birth-date',
      '1990-01-01',
    ];
    const first = await ops('user', 'upsert', ...fields);
    expect(first.code).toBe(0);
    const second = await ops('user', 'upsert', ...fields.map((value) => (value === 'Prosta 1' ? 'Krzywa 2' : value)));
    expect(second.output.userId).toBe(first.output.userId);
    const rows = await ctx.orm.em
      .fork()
      .getConnection()
      .execute(`select address, pesel, birth_date::text from partner_user where id = ?`, [first.output.userId]);
    expect(rows).toEqual([{ address: 'Krzywa 2', pesel: '90010112345', birth_date: '1990-01-01' }]);
  });

  it('a malformed flag value is a usage mistake: one JSON error with the usage on stdout, exit code 2', async () => {
    const result = await ops('user', 'upsert', '--partner', 'not-a-uuid', '--country', 'Poland');
    expect(result.code).toBe(2);
    expect(result.output.error).toBe('invalid-request');
    expect(result.output.message).toContain('--partner must be a UUID');
    expect(result.output.message).toContain('--country must be a two-letter country code');
    expect(result.output.usage).toContain('user upsert --partner ID');
  });

  it('an unknown flag, an unknown command or a missing argument is a usage mistake: invalid-request with the usage, exit code 2', async () => {
    const [unknownFlag, unknownCommand, noCommand, missingArgument, missingValue] = await Promise.all([
      ops('partner', 'create', '--name', 'Typo', '--fee-percentag', '1'),
      ops('partner', 'delete', '--name', 'Typo'),
      ops(),
      ops('deposit', 'approve'),
      ops('partner', 'create', '--name'),
    ]);
    const usage = expect.stringMatching(/^usage: npm run ops -- <command>\n[^]*\n {2}partner create --name NAME/);
    expect(unknownFlag).toEqual({ code: 2, output: { error: 'invalid-request', message: 'unknown flag --fee-percentag', usage } });
    expect(unknownCommand).toEqual({ code: 2, output: { error: 'invalid-request', message: 'unknown command "partner delete"', usage } });
    expect(noCommand).toEqual({ code: 2, output: { error: 'invalid-request', message: 'no command given', usage } });
    expect(missingArgument).toEqual({
      code: 2,
      output: { error: 'invalid-request', message: 'expected exactly one pending credit ID', usage },
    });
    expect(missingValue).toMatchObject({
      code: 2,
      output: { error: 'invalid-request', message: expect.stringContaining('--name'), usage },
    });
    const [partners] = await ctx.orm.em.fork().getConnection().execute(`select count(*)::int as count from partner where name = 'Typo'`);
    expect(partners).toEqual({ count: 0 });
  });
});
