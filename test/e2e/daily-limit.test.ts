import type { CryptoCurrency } from '../../core/currencies';
import { Decimal } from '../../core/money';
import { DEFAULT_EUR_RATES } from '../../core/rates';
import { newWalletAddress } from '../../db/services/account-identifiers';
import { eventually } from '../support/eventually';
import { createTestPartner } from '../support/fixtures';
import type { TestPartner } from '../support/fixtures';
import { startTestApi } from '../support/http';
import type { TestApi } from '../support/http';
import { balancesOf, historyOf, registerUser } from '../support/operations';
import { runOpsCli } from '../support/ops-cli';
import { naturalSepaTransferBody } from '../support/sepa-payment.fixture';
import { TEST_WORKER_SETTINGS } from '../support/test-config';
import { useTestApi } from '../support/use-test-api';

const ctx = useTestApi({ poolMax: 20 });

async function setDailyLimit(partner: TestPartner, limit: string): Promise<void> {
  const result = await runOpsCli(['partner', 'set-policy', '--partner', partner.partnerId, '--daily-limit-eur', limit]);
  expect(result).toMatchObject({ code: 0, output: { dailyLimitEur: limit === 'none' ? null : limit } });
}

const transfer = (partner: TestPartner, amount: string, overrides: Record<string, unknown> = {}) =>
  ctx.api.request('POST', '/v1/partner/sepa-transfer', { apiKey: partner.apiKey, body: naturalSepaTransferBody({ amount, ...overrides }) });

/** 1 pol is 0.2 EUR at the default rates: 125 pol is 25 EUR, fee (0.1 pol) excluded. */
const polWithdrawal = (amount: string, extra: Record<string, unknown> = {}) => ({
  currency: 'pol',
  amount,
  walletAddress: newWalletAddress('pol'),
  name: 'Jan Kowalski',
  walletType: 'CUSTODIAL',
  receiverType: 'NATURAL',
  ...extra,
});

const refusal = (left: string) => ({ errorCode: 'P442', errorName: 'limit-exceeded', errorMessage: `${left} EUR left in the last 24 h` });

describe('the daily limit: a rolling 24 hours in EUR over crypto withdrawals and SEPA transfers', () => {
  it('refuses what would pass it with 400 P442 saying what is left, holding nothing; exactly the limit passes', async () => {
    const partner = await createTestPartner(ctx.orm, { deposits: { eur: '1000' } });
    await setDailyLimit(partner, '100');
    expect((await transfer(partner, '60')).status).toBe(201);
    const over = await transfer(partner, '40.01');
    expect(over.status).toBe(400);
    expect(over.json).toEqual(refusal('40.00'));
    expect((await balancesOf(ctx.api, partner)).eur).toBe('940.00');
    expect((await transfer(partner, '40')).status).toBe(201);
    const full = await transfer(partner, '0.01');
    expect(full.json).toEqual(refusal('0.00'));
    expect((await balancesOf(ctx.api, partner)).eur).toBe('900.00');
    expect(await historyOf(ctx.api, partner)).toHaveLength(3); // the deposit and the two transfers

    // A refusal, not a failure: its workflow completes UNSUCCESSFUL at a stage that says why.
    const refused = await eventually(async () => {
      const found: string[] = [];
      const query = `PartnerId = "${partner.partnerId}" AND OperationStage = "REFUSED_LIMIT_EXCEEDED"`;
      for await (const execution of ctx.temporal.workflow.list({ query })) {
        expect(execution.status.name).toBe('COMPLETED');
        found.push(execution.workflowId);
      }
      expect(found).toHaveLength(2);
      return found;
    });
    expect(await ctx.temporal.workflow.getHandle(refused[0]!).result()).toMatchObject({
      status: 'UNSUCCESSFUL',
      stage: 'REFUSED_LIMIT_EXCEEDED',
      refusal: { kind: 'limit-exceeded', message: expect.stringMatching(/^\d+\.\d\d EUR left in the last 24 h$/) },
    });
  });

  it('holds for concurrent requests: of 10 parallel transfers of 15 EUR under 100 EUR, 6 are accepted', async () => {
    const partner = await createTestPartner(ctx.orm, { deposits: { eur: '1000' } });
    await setDailyLimit(partner, '100');
    const responses = await Promise.all(Array.from({ length: 10 }, () => transfer(partner, '15')));
    const accepted = responses.filter((response) => response.status === 201);
    const refused = responses.filter((response) => response.status === 400);
    expect(accepted.length + refused.length).toBe(10);
    expect(accepted.length).toBeLessThanOrEqual(6);
    expect(accepted.length * 15).toBeLessThanOrEqual(100);
    // Nothing else competes for the limit, so everything that fits is accepted.
    expect(accepted).toHaveLength(6);
    for (const response of refused) expect(response.json).toEqual(refusal('10.00'));
    expect((await balancesOf(ctx.api, partner)).eur).toBe(new Decimal(1000).minus(15 * accepted.length).toFixed(2));
  });

  it('holds across currencies too, whose balances do not queue on one row: 10 parallel operations of 15 EUR, 6 accepted', async () => {
    // 15 EUR each at the default rates; the ledger locks one balance row per currency, so only the limit's own lock orders them.
    const amounts = { eur: '15', pol: '75', ltc: '0.1875', eth: '0.005', doge: '100' } as const;
    const partner = await createTestPartner(ctx.orm, { deposits: { eur: '100', pol: '1000', ltc: '10', eth: '1', doge: '1000' } });
    await setDailyLimit(partner, '100');
    const requests = Object.entries(amounts).flatMap(([currency, amount]) =>
      Array.from({ length: 2 }, () =>
        currency === 'eur'
          ? transfer(partner, amount)
          : ctx.api.request('POST', '/v1/partner/crypto-withdrawal', {
              apiKey: partner.apiKey,
              body: { ...polWithdrawal(amount), currency, walletAddress: newWalletAddress(currency as CryptoCurrency) },
            }),
      ),
    );
    const responses = await Promise.all(requests);
    const accepted = responses.filter((response) => response.status < 300);
    for (const response of responses.filter((each) => each.status >= 300)) expect(response.json).toEqual(refusal('10.00'));
    expect(accepted.length * 15).toBeLessThanOrEqual(100);
    expect(accepted).toHaveLength(6);
  });

  it('a released transfer gives its share back, a refused one never took any', async () => {
    const partner = await createTestPartner(ctx.orm, { deposits: { eur: '1000' } });
    await setDailyLimit(partner, '30');
    // The simulated bank rejects this IBAN: the transfer ends UNSUCCESSFUL and its hold is released.
    const rejected = await transfer(partner, '15', { destinationIban: TEST_WORKER_SETTINGS.SIMULATED_BANK_REJECT_IBANS });
    expect(rejected.status).toBe(201);
    // Until the bank's answer, it counts (or already does not): which one depends on how fast the answer comes.
    const meanwhile = await transfer(partner, '15');
    expect(meanwhile.status).toBe(201);
    await eventually(async () => {
      const entry = (await historyOf(ctx.api, partner)).find((each) => each.id === rejected.json.transferId);
      expect(entry?.status).toBe('UNSUCCESSFUL');
    });
    // Released: its 15 came back, so 15 of 30 are used.
    expect((await transfer(partner, '15')).status).toBe(201);
    // Refused ones take nothing: the same 0.00 is left after each.
    expect((await transfer(partner, '0.01')).json).toEqual(refusal('0.00'));
    expect((await transfer(partner, '15')).json).toEqual(refusal('0.00'));
    expect((await balancesOf(ctx.api, partner)).eur).toBe('970.00');
  });

  it("counts crypto withdrawals, the partner's and its users', in EUR at the rates of their acceptance, fees excluded", async () => {
    const partner = await createTestPartner(ctx.orm, { deposits: { eur: '1000', pol: '10000' } });
    await registerUser(ctx.orm, partner, 'limit-user');
    await setDailyLimit(partner, '100');
    const own = await ctx.api.request('POST', '/v1/partner/crypto-withdrawal', { apiKey: partner.apiKey, body: polWithdrawal('125') });
    expect(own.status).toBe(200);
    const forUser = await ctx.api.request('POST', '/v1/crypto-withdrawal', {
      apiKey: partner.apiKey,
      body: polWithdrawal('125', { sourceExternalUserId: 'limit-user' }),
    });
    expect(forUser.status).toBe(200);
    // Accepted while pol is worth 0.4 EUR: 50 pol count as 20 EUR, whatever the rate is later.
    const repriced: TestApi = await startTestApi({ eurRates: { ...DEFAULT_EUR_RATES, pol: '0.4' } });
    ctx.defer(() => repriced.stop());
    const dearer = await repriced.request('POST', '/v1/partner/crypto-withdrawal', { apiKey: partner.apiKey, body: polWithdrawal('50') });
    expect(dearer.status).toBe(200);
    // 25 + 25 + 20 = 70 EUR used: 30 left, which the network fees (0.1 pol each) do not eat into.
    expect((await transfer(partner, '30.01')).json).toEqual(refusal('30.00'));
    expect((await transfer(partner, '30')).status).toBe(201);
    expect((await transfer(partner, '0.01')).json).toEqual(refusal('0.00'));
    const overByPol = await ctx.api.request('POST', '/v1/partner/crypto-withdrawal', { apiKey: partner.apiKey, body: polWithdrawal('1') });
    expect(overByPol.json).toEqual(refusal('0.00'));
    expect((await balancesOf(ctx.api, partner)).pol).toBe('9699.700000000000000000');
  });

  it('`none` removes the limit', async () => {
    const partner = await createTestPartner(ctx.orm, { deposits: { eur: '1000' } });
    await setDailyLimit(partner, '10');
    expect((await transfer(partner, '20')).json).toEqual(refusal('10.00'));
    await setDailyLimit(partner, 'none');
    expect((await transfer(partner, '20')).status).toBe(201);
    expect((await transfer(partner, '500')).status).toBe(201);
    expect((await balancesOf(ctx.api, partner)).eur).toBe('480.00');
  });
});
