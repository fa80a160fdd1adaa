import { randomUUID } from 'node:crypto';
import { newWalletAddress } from '../../db/services/account-identifiers';
import type { CryptoCurrency } from '../../core/currencies';
import { completeTravelRuleUpdate, cryptoWithdrawalContract, statusQuery } from '../../contracts';
import { eventually } from '../support/eventually';
import { createTestPartner } from '../support/fixtures';
import type { TestPartner } from '../support/fixtures';
import { balancesOf, historyOf, registerUser } from '../support/operations';
import { TEST_WORKER_SETTINGS } from '../support/test-config';
import { auditedCompletion } from '../support/travel-rule-completion';
import { useTestApi } from '../support/use-test-api';

const ctx = useTestApi();

const withdraw = (partner: TestPartner, body: Record<string, unknown>, headers: Record<string, string> = {}) =>
  ctx.api.request('POST', '/v1/partner/crypto-withdrawal', { apiKey: partner.apiKey, body, headers });
const withdrawForUser = (partner: TestPartner, body: Record<string, unknown>) =>
  ctx.api.request('POST', '/v1/crypto-withdrawal', { apiKey: partner.apiKey, body });
const details = (partner: TestPartner, withdrawalId: string) =>
  ctx.api.request('GET', `/v1/crypto-withdrawal/details/${withdrawalId}`, { apiKey: partner.apiKey });

function ethWithdrawal(overrides: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    currency: 'eth',
    amount: 0.5,
    walletAddress: newWalletAddress('eth'),
    name: 'Jan Kowalski',
    walletType: 'CUSTODIAL',
    receiverType: 'NATURAL',
    ...overrides,
  };
}

async function settledDetails(partner: TestPartner, withdrawalId: string, status = 'SUCCESSFUL') {
  return eventually(async () => {
    const response = await details(partner, withdrawalId);
    expect(response.json.status).toBe(status);
    return response;
  });
}

describe('POST /v1/partner/crypto-withdrawal', () => {
  it('answers 200 with withdrawalId once amount + fee are reserved, then settles on chain', async () => {
    const partner = await createTestPartner(ctx.orm, { deposits: { eth: '2' } });
    const destination = newWalletAddress('eth');
    const response = await withdraw(partner, ethWithdrawal({ walletAddress: destination, memo: 'payout 7' }));
    expect(response.status).toBe(200);
    expect(response.json).toEqual({ withdrawalId: expect.stringMatching(/^[0-9a-f-]{36}$/) });
    // Reserved at once: 2 − (0.5 + 0.0005 fee).
    expect((await balancesOf(ctx.api, partner)).eth).toBe('1.499500000000000000');

    const settled = await settledDetails(partner, response.json.withdrawalId);
    expect(settled.json).toEqual({
      id: response.json.withdrawalId,
      amount: 0.5,
      fee: 0.0005,
      destination,
      status: 'SUCCESSFUL',
      transactionHash: expect.stringMatching(/^0x[0-9a-f]{64}$/),
      currency: { network: '', name: 'ETH' },
      createdAt: expect.any(String),
      user: null,
    });
    expect((await balancesOf(ctx.api, partner)).eth).toBe('1.499500000000000000');
    const [entry] = await historyOf(ctx.api, partner);
    expect(entry).toMatchObject({
      id: response.json.withdrawalId,
      type: 'cryptoWithdrawal',
      amount: -0.5005,
      currency: 'eth',
      status: 'SUCCESSFUL',
    });
  });

  it('withdraws usdc on polygon with the polygon fee, network in any letter case', async () => {
    const partner = await createTestPartner(ctx.orm, { deposits: { usdc: '100' } });
    const response = await withdraw(
      partner,
      ethWithdrawal({ currency: 'usdc', amount: '25.5', network: 'polygon', walletAddress: newWalletAddress('usdc') }),
    );
    expect(response.status).toBe(200);
    const settled = await settledDetails(partner, response.json.withdrawalId);
    expect(settled.json).toMatchObject({ amount: 25.5, fee: 0.1, currency: { network: 'polygon', name: 'USDC' } });
    expect((await balancesOf(ctx.api, partner)).usdc).toBe('74.400000');
  });

  it.each<[CryptoCurrency, string, string, string]>([
    ['eth', 'ethereum', '0.01', 'ETH'],
    ['pol', 'POLYGON', '1', 'POL'],
    ['btc', 'bitcoin', '0.001', 'BTC'],
    ['ltc', 'Litecoin', '0.01', 'LTC'],
    ['doge', 'dogecoin', '10', 'DOGE'],
  ])(
    "accepts %s with its only network %s as if no network were sent: the currency's fee, settled",
    async (currency, network, amount, name) => {
      const partner = await createTestPartner(ctx.orm, { deposits: { [currency]: '100' } });
      const body = { currency, amount, walletAddress: newWalletAddress(currency) };
      const withNetwork = await withdraw(partner, ethWithdrawal({ ...body, network }));
      expect(withNetwork.status).toBe(200);
      const without = await withdraw(partner, ethWithdrawal(body));
      expect(without.status).toBe(200);
      const [named, unnamed] = await Promise.all([
        settledDetails(partner, withNetwork.json.withdrawalId),
        settledDetails(partner, without.json.withdrawalId),
      ]);
      const { amount: sentAmount, fee, currency: shown } = unnamed.json;
      expect(shown).toEqual({ network: '', name });
      expect(named.json).toMatchObject({ amount: sentAmount, fee, currency: shown, status: 'SUCCESSFUL' });
    },
  );

  it('withdraws btc to a bech32 address with a 64-hex transaction hash', async () => {
    const partner = await createTestPartner(ctx.orm, { deposits: { btc: '1' } });
    const response = await withdraw(partner, ethWithdrawal({ currency: 'btc', amount: 0.01, walletAddress: newWalletAddress('btc') }));
    const settled = await settledDetails(partner, response.json.withdrawalId);
    expect(settled.json.transactionHash).toMatch(/^[0-9a-f]{64}$/);
    expect((await balancesOf(ctx.api, partner)).btc).toBe('0.98995000');
  });

  it('refuses more than the available balance (amount + fee) with 400 P433', async () => {
    const partner = await createTestPartner(ctx.orm, { deposits: { eth: '0.5' } });
    const response = await withdraw(partner, ethWithdrawal({ amount: 0.5 }));
    expect(response.status).toBe(400);
    // The ledger's own words, never the statement or its values (the partner's ids).
    expect(response.json).toEqual({ errorCode: 'P433', errorName: 'insufficient-funds', errorMessage: 'not enough eth available' });
    expect((await balancesOf(ctx.api, partner)).eth).toBe('0.500000000000000000');
  });

  it.each([
    [{ currency: 'xrp' }, 'currency: currency must be one of btc, doge, eth, ltc, pol, usdc'],
    [{ currency: 'eur' }, 'currency: currency must be one of'],
    [{ network: 'POLYGON' }, 'network: network must be ethereum for eth (its only network), or omitted'],
    [
      { currency: 'btc', amount: 0.01, walletAddress: newWalletAddress('btc'), network: 'litecoin' },
      'network: network must be bitcoin for btc',
    ],
    [{ currency: 'usdc', network: 'solana' }, 'network: network must be one of ethereum, polygon for usdc'],
    [{ amount: '0.0000000000000000001' }, 'amount: amount must have at most 18 decimals for eth'],
    [
      { currency: 'btc', amount: 0.000000001, walletAddress: 'bc1qar0srrr7xfkvy5l643lydnw9re59gtzzwf5mdq' },
      'amount: amount must have at most 8 decimals for btc',
    ],
    [{ amount: 0.0001 }, 'amount: the minimum withdrawal is 0.001 eth'],
    [{ amount: 0 }, 'amount: amount must be greater than zero'],
    [{ walletAddress: 'not-an-address' }, 'walletAddress: walletAddress is not a valid'],
    [{ currency: 'btc', amount: 0.01, walletAddress: '0x52908400098527886E0F7030069857D2E4169EE7' }, 'walletAddress'],
    [{ walletType: 'HOT' }, 'walletType: walletType must be CUSTODIAL, NON_CUSTODIAL or OTHER'],
    [{ receiverType: 'ROBOT' }, 'receiverType: receiverType must be NATURAL or LEGAL'],
    [{ name: '' }, 'name: name is required'],
    [{ sourceExternalUserId: 'u-1' }, 'sourceExternalUserId belongs to POST /v1/crypto-withdrawal'],
    [{ name: 'Jan\u0000Kowalski' }, 'name: must not contain control characters'],
    [{ memo: 'memo \udc00' }, 'memo: must be well-formed Unicode'],
    [{ amount: '1e-100000000' }, 'amount: amount must have an exponent of at most 3 digits'],
  ])('refuses %j with 400 P410 saying what is wrong', async (overrides, message) => {
    const partner = await createTestPartner(ctx.orm, { deposits: { eth: '1', btc: '1' } });
    const response = await withdraw(partner, ethWithdrawal(overrides));
    expect(response.status).toBe(400);
    expect(response.json).toMatchObject({ errorCode: 'P410', errorName: 'invalid-currency' });
    expect(response.json.errorMessage).toContain(message);
  });

  it('fails a deny-listed destination before broadcast and releases the funds', async () => {
    const partner = await createTestPartner(ctx.orm, { deposits: { eth: '1' } });
    const response = await withdraw(partner, ethWithdrawal({ walletAddress: TEST_WORKER_SETTINGS.DENY_LIST_ADDRESSES }));
    expect(response.status).toBe(200);
    const failed = await settledDetails(partner, response.json.withdrawalId, 'UNSUCCESSFUL');
    expect(failed.json.transactionHash).toBe('');
    expect((await balancesOf(ctx.api, partner)).eth).toBe('1.000000000000000000');
    const [entry] = await historyOf(ctx.api, partner);
    expect(entry).toMatchObject({ type: 'cryptoWithdrawal', status: 'UNSUCCESSFUL' });
  });

  describe('travel rule', () => {
    // 0.5 eth × 3000 = 1500 EUR: above the 1000 EUR threshold.
    it('stores IVMS101 originator and beneficiary data for every withdrawal', async () => {
      const partner = await createTestPartner(ctx.orm, { deposits: { eth: '1' } });
      const response = await withdraw(partner, ethWithdrawal({ amount: 0.01, receiverType: 'LEGAL', name: 'Acme Sp. z o.o.' }));
      await settledDetails(partner, response.json.withdrawalId);
      const row = (
        await ctx.orm.em
          .fork()
          .getConnection()
          .execute(`select travel_rule from crypto_withdrawal where id = ?`, [response.json.withdrawalId])
      )[0]!;
      expect(row.travel_rule.ivms101.originator.originatorPersons[0].legalPerson).toBeDefined();
      expect(row.travel_rule.ivms101.beneficiary.beneficiaryPersons[0].legalPerson.name.nameIdentifier[0].legalPersonName).toBe(
        'Acme Sp. z o.o.',
      );
      expect(row.travel_rule.requiresCompletion).toBe(false);
    });

    it('above EUR 1000 to a non-custodial wallet waits in IN_PROGRESS_TR_DATA until the signal, then settles', async () => {
      const partner = await createTestPartner(ctx.orm, { deposits: { eth: '1' } });
      const response = await withdraw(partner, ethWithdrawal({ walletType: 'NON_CUSTODIAL' }));
      const withdrawalId = response.json.withdrawalId;
      await settledDetails(partner, withdrawalId, 'IN_PROGRESS_TR_DATA');
      const [entry] = await historyOf(ctx.api, partner);
      expect(entry).toMatchObject({ id: withdrawalId, status: 'IN_PROGRESS_TR_DATA' });
      const handle = ctx.temporal.workflow.getHandle(cryptoWithdrawalContract.workflowId(withdrawalId));
      expect(await handle.query(statusQuery)).toMatchObject({ status: 'IN_PROGRESS_TR_DATA', stage: 'AWAITING_TRAVEL_RULE_DATA' });
      // A bad payload is refused by the validator and changes nothing.
      for (const bad of [
        42,
        'done',
        {},
        { completedBy: 'not an email' },
        { completedBy: 'compliance@example.com', beneficiary: { country: 'DE' } },
      ]) {
        await expect(handle.executeUpdate(completeTravelRuleUpdate, { args: [bad as never] })).rejects.toThrow();
      }
      expect(await handle.query(statusQuery)).toMatchObject({ status: 'IN_PROGRESS_TR_DATA', stage: 'AWAITING_TRAVEL_RULE_DATA' });
      const completion = {
        completedBy: 'compliance@example.com',
        beneficiary: {
          beneficiaryPersons: [
            {
              naturalPerson: {
                name: {
                  nameIdentifier: [{ primaryIdentifier: 'Kowalski', secondaryIdentifier: 'Jan', nameIdentifierType: 'LEGL' as const }],
                },
              },
            },
          ],
        },
      };
      // Without the audit row `npm run ops` writes first, the Update is refused and changes nothing.
      await expect(handle.executeUpdate(completeTravelRuleUpdate, { args: [completion] })).rejects.toThrow();
      const audited = await auditedCompletion(ctx.orm, { withdrawalId, partnerId: partner.partnerId }, completion);
      // Naming the row but carrying other data: refused by the database, the withdrawal waits on.
      const tampered = { ...audited, completedBy: 'mallory@example.com' };
      await expect(handle.executeUpdate(completeTravelRuleUpdate, { args: [tampered] })).rejects.toMatchObject({
        cause: { message: expect.stringContaining('differs from what operator action') },
      });
      expect(await handle.query(statusQuery)).toMatchObject({ status: 'IN_PROGRESS_TR_DATA', stage: 'AWAITING_TRAVEL_RULE_DATA' });
      const accepted = await handle.executeUpdate(completeTravelRuleUpdate, { args: [audited] });
      expect(accepted).toEqual({ withdrawalId, status: 'IN_PROGRESS' });
      const row = (
        await ctx.orm.em.fork().getConnection().execute(`select travel_rule from crypto_withdrawal where id = ?`, [withdrawalId])
      )[0]!;
      expect(row.travel_rule.completion).toMatchObject({ completedBy: 'compliance@example.com' });
      await settledDetails(partner, withdrawalId);
      expect((await balancesOf(ctx.api, partner)).eth).toBe('0.499500000000000000');
    });

    it('above EUR 1000 to an OTHER wallet fails after the deadline without the data and releases the funds', async () => {
      const partner = await createTestPartner(ctx.orm, { deposits: { eth: '1' } });
      const response = await withdraw(partner, ethWithdrawal({ walletType: 'OTHER' }));
      await settledDetails(partner, response.json.withdrawalId, 'IN_PROGRESS_TR_DATA');
      await eventually(async () => expect((await details(partner, response.json.withdrawalId)).json.status).toBe('UNSUCCESSFUL'), {
        timeoutMs: Number(TEST_WORKER_SETTINGS.TRAVEL_RULE_DEADLINE_MS) + 15_000,
      });
      expect((await balancesOf(ctx.api, partner)).eth).toBe('1.000000000000000000');
    });

    it('a custodial wallet never waits, whatever the amount', async () => {
      const partner = await createTestPartner(ctx.orm, { deposits: { eth: '1' } });
      const response = await withdraw(partner, ethWithdrawal({ walletType: 'CUSTODIAL' }));
      await settledDetails(partner, response.json.withdrawalId);
    });
  });

  describe('idempotency', () => {
    it('the same key and body sent twice, then concurrently, reserve and withdraw once', async () => {
      const partner = await createTestPartner(ctx.orm, { deposits: { eth: '2' } });
      const body = ethWithdrawal();
      const first = await withdraw(partner, body, { 'idempotency-key': 'w-1' });
      const again = await withdraw(partner, body, { 'idempotency-key': 'w-1' });
      expect(again.json).toEqual(first.json);
      const concurrent = await Promise.all(
        Array.from({ length: 5 }, () =>
          withdraw(partner, ethWithdrawal({ walletAddress: body.walletAddress }), { 'idempotency-key': 'w-2' }),
        ),
      );
      expect(new Set(concurrent.map((response) => response.json.withdrawalId)).size).toBe(1);
      expect(concurrent.every((response) => response.status === 200)).toBe(true);
      await settledDetails(partner, first.json.withdrawalId);
      await settledDetails(partner, concurrent[0]!.json.withdrawalId);
      // Two withdrawals of 0.5005 each, not seven.
      expect((await balancesOf(ctx.api, partner)).eth).toBe('0.999000000000000000');
    });

    it('the same key with another body is 409 P409', async () => {
      const partner = await createTestPartner(ctx.orm, { deposits: { eth: '2' } });
      await withdraw(partner, ethWithdrawal(), { 'idempotency-key': 'w-3' });
      const other = await withdraw(partner, ethWithdrawal({ amount: 0.6 }), { 'idempotency-key': 'w-3' });
      expect(other.status).toBe(409);
      expect(other.json.errorCode).toBe('P409');
    });
  });
});

describe('POST /v1/crypto-withdrawal (on behalf of a user)', () => {
  it('withdraws for a registered user, who is the travel-rule originator and shows in the details', async () => {
    const partner = await createTestPartner(ctx.orm, { deposits: { ltc: '10' } });
    await registerUser(ctx.orm, partner, 'user-77');
    const response = await withdrawForUser(
      partner,
      ethWithdrawal({ currency: 'ltc', amount: 1, walletAddress: newWalletAddress('ltc'), sourceExternalUserId: 'user-77' }),
    );
    expect(response.status).toBe(200);
    const settled = await settledDetails(partner, response.json.withdrawalId);
    expect(settled.json.user).toEqual({
      externalUserId: 'user-77',
      email: 'user-77@example.com',
      firstName: 'Anna',
      lastName: 'Nowak',
      address: 'Prosta 1',
      city: 'Warszawa',
      country: 'PL',
      documentType: 'PASSPORT',
      documentNumber: 'EA1234567',
      pesel: '90010112345',
      birthCountry: 'PL',
      birthDate: '1990-01-01',
    });
    expect(settled.json.currency).toEqual({ network: '', name: 'LTC' });
    const row = (
      await ctx.orm.em
        .fork()
        .getConnection()
        .execute(`select travel_rule from crypto_withdrawal where id = ?`, [response.json.withdrawalId])
    )[0]!;
    const person = row.travel_rule.ivms101.originator.originatorPersons[0].naturalPerson;
    expect(person.name.nameIdentifier[0]).toMatchObject({ primaryIdentifier: 'Nowak', secondaryIdentifier: 'Anna' });
    expect(person.nationalIdentification.nationalIdentifierType).toBe('CCPT');
  });

  it("accepts the currency's only network, and refuses another with 400 P410", async () => {
    const partner = await createTestPartner(ctx.orm, { deposits: { eth: '1' } });
    await registerUser(ctx.orm, partner, 'user-eth');
    const accepted = await withdrawForUser(partner, ethWithdrawal({ amount: 0.1, network: 'ethereum', sourceExternalUserId: 'user-eth' }));
    expect(accepted.status).toBe(200);
    expect((await settledDetails(partner, accepted.json.withdrawalId)).json.currency).toEqual({ network: '', name: 'ETH' });
    const refused = await withdrawForUser(partner, ethWithdrawal({ amount: 0.1, network: 'polygon', sourceExternalUserId: 'user-eth' }));
    expect(refused.status).toBe(400);
    expect(refused.json).toEqual({
      errorCode: 'P410',
      errorName: 'invalid-currency',
      errorMessage: 'network: network must be ethereum for eth (its only network), or omitted',
    });
    expect((await balancesOf(ctx.api, partner)).eth).toBe('0.899500000000000000');
  });

  it('refuses an unknown external user id with 400 P412', async () => {
    const partner = await createTestPartner(ctx.orm, { deposits: { eth: '1' } });
    const response = await withdrawForUser(partner, ethWithdrawal({ sourceExternalUserId: 'nobody' }));
    expect(response.status).toBe(400);
    expect(response.json).toMatchObject({ errorCode: 'P412', errorName: 'invalid-user' });
  });

  it('refuses a NUL in sourceExternalUserId with 400 P410 before it reaches the database', async () => {
    const partner = await createTestPartner(ctx.orm, { deposits: { eth: '1' } });
    const response = await withdrawForUser(partner, ethWithdrawal({ sourceExternalUserId: 'user\u0000' }));
    expect(response.status).toBe(400);
    expect(response.json).toMatchObject({ errorCode: 'P410', errorMessage: 'sourceExternalUserId: must not contain control characters' });
  });

  it("refuses another partner's user with 400 P412", async () => {
    const other = await createTestPartner(ctx.orm);
    await registerUser(ctx.orm, other, 'theirs');
    const partner = await createTestPartner(ctx.orm, { deposits: { eth: '1' } });
    const response = await withdrawForUser(partner, ethWithdrawal({ sourceExternalUserId: 'theirs' }));
    expect(response.json.errorCode).toBe('P412');
  });

  it('requires sourceExternalUserId (400 P410) and checks funds (400 P433)', async () => {
    const partner = await createTestPartner(ctx.orm, { deposits: { eth: '0.1' } });
    const missing = await withdrawForUser(partner, ethWithdrawal());
    expect(missing.json).toMatchObject({ errorCode: 'P410', errorMessage: 'sourceExternalUserId: sourceExternalUserId is required' });
    await registerUser(ctx.orm, partner, 'u-poor');
    const poor = await withdrawForUser(partner, ethWithdrawal({ sourceExternalUserId: 'u-poor' }));
    expect(poor.json.errorCode).toBe('P433');
  });
});

describe('GET /v1/crypto-withdrawal/details/:withdrawalId', () => {
  it.each([
    ['an unknown id', () => randomUUID()],
    ['a malformed id', () => 'not-a-uuid'],
  ])('is 404 P421 for %s', async (_name, id) => {
    const partner = await createTestPartner(ctx.orm);
    const response = await details(partner, id());
    expect(response.status).toBe(404);
    expect(response.json).toMatchObject({ errorCode: 'P421', errorName: 'withdrawal-not-found' });
  });

  it("is 404 P421 for another partner's withdrawal", async () => {
    const owner = await createTestPartner(ctx.orm, { deposits: { eth: '1' } });
    const response = await withdraw(owner, ethWithdrawal({ amount: 0.01 }));
    const stranger = await createTestPartner(ctx.orm);
    const peek = await details(stranger, response.json.withdrawalId);
    expect(peek.status).toBe(404);
    expect(peek.json.errorCode).toBe('P421');
  });
});
